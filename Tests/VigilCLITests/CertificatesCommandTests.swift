import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// `vigil certificates` against a live self-signed server (the simulator) and real database files.
@Suite("vigil certificates", .serialized, .timeLimit(.minutes(3)))
struct CertificatesCommandTests {
    func vigil(_ arguments: [String]) async throws -> CommandResult {
        try await CommandRunner.vigilDetached(arguments)
    }

    @Test func approveOnlyTheRightFingerprintThenListRevokeAndAudit() async throws {
        try await withRunningSimulator("self-signed") { (running) async throws in
            let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
            let url = running.url(path: "")
            let fingerprint =
                try CommandRunner.run("/usr/bin/openssl", ["x509", "-in", TestPaths.testcert("self-signed.pem"), "-noout", "-fingerprint", "-sha256"])
                .standardOutput.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
            #expect(fingerprint.count == 95)
            let wrong = String(repeating: "ab", count: 32)

            let refused = try await vigil(["certificates", "approve", url, "--fingerprint", wrong, "--database", database])
            #expect(refused.status == 1, "\(refused.standardError)")
            #expect(refused.standardError.contains("not approved") && refused.standardError.contains(fingerprint))
            #expect(try await vigil(["certificates", "list", "--database", database]).standardOutput.contains("no approved certificates"))

            let approved = try await vigil([
                "certificates", "approve", url, "--fingerprint", fingerprint.lowercased(), "--note", "checked by phone", "--database", database,
            ])
            #expect(approved.status == 0, "\(approved.standardError)")
            #expect(approved.standardOutput.hasPrefix("approved 1  127.0.0.1:"))
            #expect(running.simulator.journal.entries.isEmpty, "approving sends no HTTP request")

            let listed = try await vigil(["certificates", "list", "--json", "--database", database])
            let array = try #require(try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])
            #expect(array.count == 1 && array.first?["sha256"] as? String == fingerprint && array.first?["note"] as? String == "checked by phone")

            let revoked = try await vigil(["certificates", "revoke", "1", "--reason", "server replaced", "--database", database])
            #expect(revoked.status == 0, "\(revoked.standardError)")
            #expect(try await vigil(["certificates", "list", "--database", database]).standardOutput.contains("no approved certificates"))
            #expect(try await vigil(["certificates", "list", "--all", "--database", database]).standardOutput.contains("revoked"))
            let again = try await vigil(["certificates", "revoke", "1", "--reason", "twice", "--database", database])
            #expect(again.status == 2 && again.standardError.contains("No active approval"))

            let audit = try await vigil(["certificates", "audit", "--database", database]).standardOutput.split(separator: "\n")
            #expect(audit.count == 2)
            #expect(audit.first?.contains("certificate-approved") == true && audit.last?.contains("certificate-revoked") == true)
        }
    }

    @Test func aDamagedDatabaseIsReportedAndKept() async throws {
        let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
        let garbage = Data("this is not SQLite, and it must stay as it is\n".utf8) + Data(repeating: 7, count: 2000)
        try garbage.write(to: URL(fileURLWithPath: database))
        let result = try await vigil(["certificates", "list", "--database", database])
        #expect(result.status == 2)
        #expect(result.standardError.contains("not a Vigil database"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == garbage)
    }
}
