import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// `--resolve HOST:PORT:ADDRESS` (curl's semantics) on inspect and account add: a DNS name on a
/// loopback address, its certificate checked for the name, not the address.
@Suite("--resolve", .timeLimit(.minutes(3)))
struct ResolveOptionTests {
    @Test func inspectByNamePinnedToLoopback() async throws {
        try await withRunningSimulator("dns-name") { (running) async throws in
            let port = try #require(running.listeners.first { $0.host == 1 && $0.scheme == "https" }?.port)
            let pinned = try await CommandRunner.vigilDetached([
                "inspect", "https://cloud.example.test:\(port)", "--resolve", "cloud.example.test:\(port):127.0.0.1",
                "--ca-file", TestPaths.caBundle,
            ])
            #expect(pinned.status == 0, "\(pinned.standardOutput)\(pinned.standardError)")
            #expect(pinned.standardOutput.contains("TRUSTED") && pinned.standardOutput.contains("cloud.example.test"))

            // The same server by its address: the certificate names cloud.example.test, not 127.0.0.1.
            let byAddress = try await CommandRunner.vigilDetached(["inspect", "https://127.0.0.1:\(port)", "--ca-file", TestPaths.caBundle])
            #expect(byAddress.status == 1, "\(byAddress.standardOutput)")

            // A name pinned for another port is not used: the name does not resolve (.test is reserved).
            let otherPort = try await CommandRunner.vigilDetached([
                "inspect", "https://cloud.example.test:\(port)", "--resolve", "cloud.example.test:1:127.0.0.1",
                "--ca-file", TestPaths.caBundle, "--timeout", "3",
            ])
            #expect(otherPort.status == 2, "\(otherPort.standardOutput)\(otherPort.standardError)")
        }
    }

    @Test(arguments: [
        "cloud.example.test:443", "cloud.example.test:0:127.0.0.1", "cloud.example.test:443:not-an-address", ":443:127.0.0.1",
        "a b:443:127.0.0.1",
    ])
    func malformedResolveIsAUsageError(entry: String) throws {
        for command in [["inspect", "https://cloud.example.test"], ["account", "add", "https://cloud.example.test", "--user", "alice"]] {
            let result = try CommandRunner.vigil(command + ["--resolve", entry])
            #expect(result.status == 64, "\(command) --resolve \(entry): \(result.standardError)")
            #expect(result.standardError.contains("--resolve"))
        }
    }
}
