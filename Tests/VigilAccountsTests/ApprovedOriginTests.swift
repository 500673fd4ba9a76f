import Foundation
import Testing
import VigilAccounts
import VigilCertificates
import VigilHTTP
import VigilStore
import VigilTestSupport

/// Approvals kept in the store are found under every spelling of their host (a real SQLite file),
/// as ``VigilHTTP/ConnectionDecision`` reads them for every caller.
@Suite("Approvals by origin")
struct ApprovedOriginTests {
    @Test(arguments: [
        ("Files.Example.COM.", "files.example.com"), ("files.example.com", "FILES.EXAMPLE.COM."), ("[0:0:0:0:0:0:0:1]", "::1"), ("::1", "[::0001]"),
    ])
    func anApprovalIsFoundUnderEverySpelling(approvedAs: String, askedAs: String) async throws {
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        let approvals = CertificateApprovals(database: database)
        let leaf = try #require(try Certificate.load(path: TestPaths.testcert("self-signed.pem")).first)
        try await approvals.approve(leaf, host: approvedAs, port: 443)
        #expect(try await approvals.approvedLeaves(host: askedAs, port: 443) == [leaf.sha256Fingerprint])
        #expect(try await approvals.approvedLeaves(host: askedAs, port: 8443).isEmpty, "another port is another origin")
        let leaves = try await approvals.leaves(for: [Endpoint(host: askedAs, port: 443)])
        #expect(leaves.source(of: leaf, at: Endpoint(host: askedAs)) == .user)
        // Approving it again under another spelling keeps one approval.
        try await approvals.approve(leaf, host: askedAs, port: 443)
        #expect(try await approvals.list().count == 1)
    }
}
