import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// `vigil certificates audit --check`: approvals that need attention, with an exit code for cron.
@Suite("certificates audit --check", .serialized, .timeLimit(.minutes(3)))
struct AuditCheckTests {

    @Test func expiredUnusedAndNoLongerPresented() async throws {
        let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
        let clean = try await CommandRunner.vigilDetached(["certificates", "audit", "--check", "--database", database])
        #expect(clean.status == 0 && clean.standardOutput.contains("no approval needs attention"), "\(clean.standardOutput)\(clean.standardError)")

        let running = try await RunningSimulator("expired")
        let url = running.url(path: "")
        let approved = try await CommandRunner.vigilDetached([
            "certificates", "approve", url, "--fingerprint", try TestPaths.sha256Fingerprint(of: "expired"),
            "--ca-file", TestPaths.caBundle, "--database", database,
        ])
        #expect(approved.status == 0, "\(approved.standardError)")
        await running.stop()

        let offline = try await CommandRunner.vigilDetached(["certificates", "audit", "--check", "--database", database])
        #expect(offline.status == 1, "\(offline.standardOutput)")
        #expect(
            offline.standardOutput.contains("expired  Expired on") && offline.standardOutput.contains("unused  No account uses"), "\(offline.standardOutput)")

        // The server is gone now: --live says so.
        let live = try await CommandRunner.vigilDetached(["certificates", "audit", "--check", "--live", "--json", "--database", database])
        #expect(live.status == 1)
        let problems = try #require(try JSONSerialization.jsonObject(with: Data(live.standardOutput.utf8)) as? [[String: Any]])
        #expect(Set(problems.compactMap { $0["code"] as? String }) == ["expired", "unused", "unreachable"], "\(problems)")

        let trail = try await CommandRunner.vigilDetached(["certificates", "audit", "--database", database])
        #expect(
            trail.standardOutput.contains("certificate-approved") && trail.standardOutput.contains("by ") && trail.standardOutput.contains("(uid "),
            "\(trail.standardOutput)")
        #expect(try CommandRunner.vigil(["certificates", "audit", "--live", "--database", database]).status == 64)
    }

    /// A server that answers but whose handshake fails (here a plain-HTTP port: a man in the middle
    /// breaking TLS looks the same) is `probe-failed`, an error that always counts; only a server
    /// nothing reached is `unreachable`, which the daily unit tolerates.
    @Test func aFailedHandshakeIsNeverUnreachable() async throws {
        let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
        try await withRunningSimulator("valid") { (running) async throws in
            let plain = try #require(running.listeners.first { $0.scheme == "http" })
            let approved = try await CommandRunner.vigilDetached([
                "certificates", "approve", "--file", TestPaths.testcert("valid-127.0.0.1.pem"), "--host", "127.0.0.1:\(plain.port)", "--fingerprint",
                try TestPaths.sha256Fingerprint(of: "valid-127.0.0.1"), "--ca-file", TestPaths.caBundle, "--database", database,
            ])
            #expect(approved.status == 0, "\(approved.standardError)")
            let live = try await CommandRunner.vigilDetached([
                "certificates", "audit", "--check", "--live", "--tolerate-unreachable", "--fail-on", "warning", "--json", "--database", database,
            ])
            let problems = try #require(try JSONSerialization.jsonObject(with: Data(live.standardOutput.utf8)) as? [[String: Any]], "\(live.standardOutput)")
            let failed = problems.first { $0["code"] as? String == "probe-failed" }
            #expect(live.status == 1 && failed?["level"] as? String == "error", "\(problems)")
            #expect(!problems.contains { $0["code"] as? String == "unreachable" }, "\(problems)")
        }
    }

    /// An approval no account uses is a notice: every finding fails the check by default, and
    /// `--fail-on warning` (the daily unit's) lets a notice through while still reporting it.
    @Test func aNoticeFailsOnlyWhenAskedTo() async throws {
        let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
        let running = try await RunningSimulator("self-signed")
        let approved = try await CommandRunner.vigilDetached([
            "certificates", "approve", running.url(path: ""), "--fingerprint", try TestPaths.sha256Fingerprint(of: "self-signed"),
            "--ca-file", TestPaths.caBundle, "--database", database,
        ])
        await running.stop()
        #expect(approved.status == 0, "\(approved.standardError)")
        let every = try await CommandRunner.vigilDetached(["certificates", "audit", "--check", "--database", database])
        #expect(every.status == 1 && every.standardOutput.contains("unused"), "\(every.standardOutput)")
        let warnings = try await CommandRunner.vigilDetached(["certificates", "audit", "--check", "--fail-on", "warning", "--database", database])
        #expect(warnings.status == 0 && warnings.standardOutput.contains("unused"), "reported, not failed: \(warnings.standardOutput)")
        #expect(try await CommandRunner.vigilDetached(["certificates", "audit", "--check", "--fail-on", "bogus", "--database", database]).status == 64)
    }
}
