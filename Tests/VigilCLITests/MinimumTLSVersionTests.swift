import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// The connection is part of the verdict: `connection.minimum-tls-version` (default 1.2).
@Suite("Minimum TLS version", .serialized, .timeLimit(.minutes(3)))
struct MinimumTLSVersionTests {
    @Test func aTLS11ServerIsUntrustedAndRefused() async throws {
        try await withRunningSimulator("legacy-tls") { (running) async throws in
            let url = running.url(path: "")
            let inspected = try await CommandRunner.vigilDetached(["inspect", url, "--ca-file", TestPaths.caBundle])
            #expect(inspected.status == 1, "\(inspected.standardOutput)\(inspected.standardError)")
            #expect(inspected.standardOutput.hasPrefix("UNTRUSTED"))
            #expect(inspected.standardOutput.contains("The connection uses TLS 1.1, below the minimum TLS 1.2"), "\(inspected.standardOutput)")
            #expect(inspected.standardOutput.contains("connection: TLSv1.1"), "the handshake still completes, to show what the server offers")

            let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
            let added = try await CommandRunner.vigilDetached([
                "account", "add", url, "--user", "alice", "--password-stdin", "--method", "basic",
                "--ca-file", TestPaths.caBundle, "--database", database,
            ])
            #expect(added.status == 1, "\(added.standardOutput)\(added.standardError)")
            #expect(added.standardError.contains("cannot be approved") && added.standardError.contains("below the minimum TLS 1.2"), "\(added.standardError)")
            #expect(running.simulator.journal.entries.isEmpty, "nothing was sent")
        }
    }

    @Test func theSettingRaisesTheMinimum() async throws {
        try await withRunningSimulator("tls12-only") { (running) async throws in
            let url = running.url(path: "")
            let byDefault = try await CommandRunner.vigilDetached(["inspect", url, "--ca-file", TestPaths.caBundle])
            #expect(byDefault.status == 0, "\(byDefault.standardOutput)")
            let strict = try await CommandRunner.vigilDetached(
                ["inspect", url, "--ca-file", TestPaths.caBundle], environment: ["VIGIL_CONNECTION_MINIMUM_TLS_VERSION": "1.3"])
            #expect(strict.status == 1, "\(strict.standardOutput)\(strict.standardError)")
            #expect(strict.standardOutput.contains("below the minimum TLS 1.3"))
        }
    }
}
