import Foundation
import Testing
import VigilTestSupport

/// `certificates approve --file PEM --host HOST[:PORT]`: approving without contacting the server,
/// after showing the summary; the approval rule and the fingerprint still apply.
@Suite("Offline approval")
struct OfflineApprovalTests {

    @Test func approveAFileForAHostAndPort() throws {
        let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
        let ok = try CommandRunner.vigil([
            "certificates", "approve", "--file", TestPaths.testcert("self-signed-chain.pem"), "--host", "127.0.0.1:8443",
            "--fingerprint", try TestPaths.sha256Fingerprint(of: "self-signed"), "--database", database,
        ])
        #expect(ok.status == 0, "\(ok.standardError)")
        #expect(ok.standardOutput.contains("SHA-256:") && ok.standardOutput.contains("approved 1  127.0.0.1:8443"), "the summary first, then the approval")

        let wrong = try CommandRunner.vigil([
            "certificates", "approve", "--file", TestPaths.testcert("self-signed-chain.pem"), "--host", "127.0.0.1",
            "--fingerprint", String(repeating: "ab", count: 32), "--database", database,
        ])
        #expect(wrong.status == 1)
        let weak = try CommandRunner.vigil([
            "certificates", "approve", "--file", TestPaths.testcert("rsa-1024-chain.pem"), "--host", "127.0.0.1",
            "--fingerprint", try TestPaths.sha256Fingerprint(of: "rsa-1024"), "--ca-file", TestPaths.caBundle, "--database", database,
        ])
        #expect(weak.status == 1 && weak.standardError.contains("cannot be approved"))
        let listed = try CommandRunner.vigil(["certificates", "list", "--json", "--database", database])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
        #expect(array.count == 1 && array.first?["port"] as? Int == 8443)

        // The certificate as it was reviewed, later.
        let shown = try CommandRunner.vigil(["certificates", "show", "1", "--database", database])
        #expect(shown.status == 0, "\(shown.standardError)")
        #expect(shown.standardOutput.contains("127.0.0.1:8443") && shown.standardOutput.contains("SPKI pin (SHA-256):"))
        #expect(try CommandRunner.vigil(["certificates", "show", "7", "--database", database]).status == 2)
    }

    @Test(arguments: [["--file", "x.pem"], ["https://127.0.0.1", "--file", "x.pem", "--host", "127.0.0.1"], []])
    func eitherAURLOrAFileWithAHost(arguments: [String]) throws {
        let result = try CommandRunner.vigil(["certificates", "approve", "--fingerprint", String(repeating: "ab", count: 32)] + arguments)
        #expect(result.status == 64, "\(arguments): \(result.standardError)")
    }
}
