import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// The same stored state and settings give the same answer to every command that asks "may this
/// connection go" (issue 50): a certificate the administrator approved in advance is ready in
/// `account show` as it passes `account check`.
@Suite(
    "account show and account check agree", .serialized,
    .enabled(if: TestPaths.keyringDirectory != nil, "needs a Secret Service: run `make test`"), .timeLimit(.minutes(3)))
struct AccountAgreementTests {
    @Test func aPreApprovedCertificateIsReadyWhereItPasses() async throws {
        let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
        try await withRunningSimulator("self-signed-preapproved") { running in
            let host = try #require(URLComponents(string: running.url(path: ""))).port.map { "127.0.0.1:\($0)" } ?? "127.0.0.1"
            let managed = ["VIGIL_CONNECTION_APPROVED_CERTIFICATES": "\(host)=\(try TestPaths.sha256Fingerprint(of: "self-signed"))"]
            let added = try await CommandRunner.vigilDetached(
                ["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--database", database], environment: managed,
                input: Data("alice-test-password\n".utf8))
            #expect(added.status == 0, "\(added.standardOutput)\(added.standardError)")
            let listed = try CommandRunner.vigil(["account", "list", "--json", "--database", database])
            let accounts = try #require(try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]], "\(listed.standardError)")
            let id = try #require(accounts.first?["id"] as? String, "\(accounts)")
            let check = try await CommandRunner.vigilDetached(["account", "check", id, "--database", database], environment: managed)
            let show = try await CommandRunner.vigilDetached(["account", "show", id, "--database", database], environment: managed)
            #expect(check.status == 0, "\(check.standardOutput)\(check.standardError)")
            #expect(show.standardOutput.contains("status: ready") && !show.standardOutput.contains("REVIEW NEEDED"), "\(show.standardOutput)")
            // Without the administrator's approval neither passes: the same answer again.
            let checkWithout = try await CommandRunner.vigilDetached(["account", "check", id, "--database", database])
            let showWithout = try await CommandRunner.vigilDetached(["account", "show", id, "--database", database])
            #expect(
                checkWithout.status != 0 && showWithout.standardOutput.contains("REVIEW NEEDED"),
                "\(checkWithout.standardOutput)\n\(showWithout.standardOutput)")
        }
    }
}
