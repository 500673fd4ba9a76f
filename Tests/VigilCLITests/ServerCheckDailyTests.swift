import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// `vigil server check --accounts` and `--daily`: every account's server once, the findings a
/// server did not have at the last run only, and nothing at all unless `server-check.daily` is on.
@Suite(
    "vigil server check --daily", .serialized,
    .enabled(if: TestPaths.keyringDirectory != nil, "needs a Secret Service: run `make test`"), .timeLimit(.minutes(3)))
struct ServerCheckDailyTests {
    @Test func theDailyCheckJournalsOnlyWhatIsNew() async throws {
        let directory = try TestPaths.temporaryDirectory()
        let database = directory.appendingPathComponent("vigil.sqlite").path
        let state: [String: String?] = ["XDG_STATE_HOME": directory.appendingPathComponent("state").path]
        let on = state.merging(["VIGIL_SERVER_CHECK_DAILY": "true"]) { $1 }
        try await withRunningSimulator("server-tls10-accepted") { running in
            let added = try await CommandRunner.vigilDetached(
                ["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle, "--database", database],
                input: Data("alice-test-password\n".utf8))
            #expect(added.status == 0, "\(added.standardOutput)\(added.standardError)")
            let before = running.simulator.journal.entries.count
            let off = try await CommandRunner.vigilDetached(["server", "check", "--daily", "--database", database], environment: state)
            #expect(off.status == 0 && off.standardOutput.contains("is off (server-check.daily)"), "\(off.standardOutput)\(off.standardError)")
            #expect(running.simulator.journal.entries.count == before, "off means no connection at all")

            // The first run: every finding is new; a warning fails --fail-on warning.
            let first = try await CommandRunner.vigilDetached(["server", "check", "--daily", "--database", database], environment: on)
            #expect(first.status == 1 && first.standardOutput.contains("protocol-tls10"), "\(first.standardOutput)\(first.standardError)")
            #expect(first.standardOutput.hasPrefix("B  " + running.url(path: "")), "the grade and the server first: \(first.standardOutput)")
            // The next: nothing new, nothing fails.
            let second = try await CommandRunner.vigilDetached(["server", "check", "--daily", "--database", database], environment: on)
            #expect(
                second.status == 0 && second.standardOutput.contains("nothing new") && !second.standardOutput.contains("protocol-tls10"),
                "\(second.standardOutput)")
            // --accounts alone shows every finding, and keeps nothing.
            let all = try await CommandRunner.vigilDetached(["server", "check", "--accounts", "--database", database], environment: state)
            #expect(all.status == 1 && all.standardOutput.contains("protocol-tls10"), "\(all.standardOutput)")
            #expect(!running.simulator.journal.entries.dropFirst(before).contains { $0.authorization }, "no credential was sent by a check")
        }
        let usage = try CommandRunner.vigil(["server", "check", "--accounts", "https://127.0.0.1:1"])
        #expect(usage.status == 64, "\(usage.standardError)")
    }
}
