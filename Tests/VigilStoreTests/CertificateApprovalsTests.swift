import Foundation
import Testing
import VigilCertificates
import VigilHTTP
import VigilSimulator
import VigilStore
import VigilTestSupport

/// Real SQLite files in temporary directories.
@Suite("Approved certificates", .timeLimit(.minutes(3)))
struct CertificateApprovalsTests {
    func freshDatabase() throws -> VigilDatabase {
        try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("state/vigil.sqlite").path)
    }

    func certificate(_ name: String) throws -> Certificate {
        try #require(try Certificate.load(path: TestPaths.testcert("\(name).pem")).first)
    }

    @Test func approveRevokeAndTheAuditTrail() throws {
        let approvals = CertificateApprovals(database: try freshDatabase())
        let leaf = try certificate("self-signed")
        let approval = try approvals.approve(leaf, host: "Cloud.Example.TEST", port: 443, note: "reviewed with the admin")
        #expect(try approvals.approvedLeaves(host: "cloud.example.test", port: 443) == [leaf.sha256Fingerprint])
        #expect(try approvals.approvedLeaves(host: "cloud.example.test", port: 8443).isEmpty, "an approval is for one port")
        #expect(try approvals.approve(leaf, host: "cloud.example.test", port: 443).id == approval.id, "approving twice keeps one approval")
        #expect(approval.subject.contains("127.0.0.1") || !approval.subject.isEmpty)

        let revoked = try approvals.revoke(id: try #require(approval.id), reason: "key compromise")
        #expect(revoked.revokedAt != nil && revoked.revocationReason == "key compromise")
        #expect(try approvals.approvedLeaves(host: "cloud.example.test", port: 443).isEmpty)
        #expect(try approvals.list().isEmpty)
        #expect(try approvals.list(includingRevoked: true).map(\.id) == [approval.id], "a revoked approval stays for the audit")
        #expect(throws: StoreError.self) { try approvals.revoke(id: try #require(approval.id), reason: "again") }

        let trail = try approvals.database.auditTrail()
        #expect(trail.map(\.kind) == [.certificateApproved, .certificateRevoked])
        #expect(trail.allSatisfy { $0.target == "cloud.example.test:443" })
        #expect(trail.last?.detail.hasSuffix("key compromise") == true)
        // Approving again after a revocation is a new, audited decision.
        let again = try approvals.approve(leaf, host: "cloud.example.test", port: 443)
        #expect(again.id != approval.id)
        #expect(try approvals.database.auditTrail().count == 3)
    }

    @Test func theFileIsPrivateAndSurvivesReopening() throws {
        let path = try TestPaths.temporaryDirectory().appendingPathComponent("state/vigil.sqlite").path
        do {
            let approvals = CertificateApprovals(database: try VigilDatabase(path: path))
            try approvals.approve(try certificate("rekeyed-b1"), host: "127.0.0.1", port: 8443)
        }
        let reopened = CertificateApprovals(database: try VigilDatabase(path: path))
        #expect(try reopened.list().count == 1)
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0, "the database is readable by its owner only: \(String(mode, radix: 8))")
        let directory = (path as NSString).deletingLastPathComponent
        let directoryMode = try #require(try FileManager.default.attributesOfItem(atPath: directory)[.posixPermissions] as? Int)
        #expect(directoryMode & 0o077 == 0)
    }

    @Test func aFileThatIsNotAVigilDatabaseIsLeftAlone() throws {
        let path = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
        let garbage = Data(repeating: 0x42, count: 4096)
        try garbage.write(to: URL(fileURLWithPath: path))
        do {
            _ = try VigilDatabase(path: path)
            Issue.record("a garbage file was opened as a database")
        } catch let error as StoreError {
            #expect(error.code == .unreadable, "\(error)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage, "the file was not changed")
    }

    @Test func badHostsAndPortsAreRefused() throws {
        let approvals = CertificateApprovals(database: try freshDatabase())
        let leaf = try certificate("self-signed")
        for (host, port) in [("", 443), ("cloud.test", 0), ("cloud.test", 70_000)] {
            #expect(throws: StoreError.self) { try approvals.approve(leaf, host: host, port: port) }
        }
    }

    /// The store feeds the HTTP client's policy: approved, the self-signed server is reached;
    /// revoked, it is refused again before anything is sent.
    @Test func anApprovalOpensTheWayAndARevocationClosesIt() async throws {
        try await withRunningSimulator("self-signed") { (running) async throws in
            let port = try #require(running.listeners.first { $0.host == 1 && $0.scheme == "https" }?.port)
            let approvals = CertificateApprovals(database: try freshDatabase())
            let evaluator = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle]))
            func send() async throws -> HTTPResponse {
                let policy = await EvaluatorTrustPolicy(
                    evaluator: evaluator, approvals: [Endpoint(host: "127.0.0.1", port: port): try approvals.approvedLeaves(host: "127.0.0.1", port: port)])
                return try await HTTPClient(policy: policy).send(HTTPRequest(url: running.url()))
            }
            await #expect(throws: HTTPError.self) { _ = try await send() }
            let approval = try await approvals.approve(try certificate("self-signed"), host: "127.0.0.1", port: port)
            #expect(try await send().status == 200)
            try await approvals.revoke(id: try #require(approval.id), reason: "test")
            await #expect(throws: HTTPError.self) { _ = try await send() }
            #expect(running.simulator.journal.entries.count == 1, "only the request made while approved reached the server")
        }
    }
}
