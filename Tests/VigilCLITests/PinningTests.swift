import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// connection.pinned-public-keys: a pinned host accepts only a chain holding a pinned key, even
/// one a CA trusts, and no approval overrides it.
@Suite("Public key pinning", .serialized, .timeLimit(.minutes(3)))
struct PinningTests {
    static func pin(_ name: String) throws -> String {
        let key = try CommandRunner.run(
            "/bin/sh",
            [
                "-c",
                "openssl x509 -in '\(TestPaths.testcert("\(name).pem"))' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64",
            ])
        return key.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aTrustedInterceptorIsRefusedAtAPinnedHost() async throws {
        try await withRunningSimulator("mitm-trusted-ca-pinned") { (running) async throws in
            let url = running.url(path: "")
            let genuine = try Self.pin("valid-127.0.0.1")
            #expect(genuine.count == 44)

            let unpinned = try await CommandRunner.vigilDetached(["inspect", url, "--ca-file", TestPaths.caBundle])
            #expect(unpinned.status == 0, "without the pin, the interceptor's chain is trusted: \(unpinned.standardOutput)")

            let pinned = ["VIGIL_CONNECTION_PINNED_PUBLIC_KEYS": "127.0.0.1=\(genuine)"]
            let inspected = try await CommandRunner.vigilDetached(["inspect", url, "--ca-file", TestPaths.caBundle], environment: pinned)
            #expect(inspected.status == 1, "\(inspected.standardOutput)\(inspected.standardError)")
            #expect(inspected.standardOutput.contains("is pinned (connection.pinned-public-keys)"))

            let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
            let interceptor = try CommandRunner.run(
                "/bin/sh",
                [
                    "-c",
                    "echo | openssl s_client -connect 127.0.0.1:\(URLComponents(string: url)!.port!) 2>/dev/null | openssl x509 -noout -fingerprint -sha256",
                ])
            let fingerprint = interceptor.standardOutput.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
            let approve = try await CommandRunner.vigilDetached(
                ["certificates", "approve", url, "--fingerprint", fingerprint, "--ca-file", TestPaths.caBundle, "--database", database],
                environment: pinned)
            #expect(approve.status == 1, "\(approve.standardError)")
            #expect(approve.standardError.contains("cannot be approved"))
            #expect(running.simulator.journal.entries.isEmpty, "nothing reached either side")
        }
    }

    @Test(arguments: ["127.0.0.1=short", "=AAAA", "127.0.0.1"])
    func aMalformedPinIsABrokenSetting(value: String) throws {
        let result = try CommandRunner.vigil(["inspect", "https://127.0.0.1:1"], environment: ["VIGIL_CONNECTION_PINNED_PUBLIC_KEYS": value])
        #expect(result.status == 78, "\(value): \(result.standardError)")
        let approved = try CommandRunner.vigil(["inspect", "https://127.0.0.1:1"], environment: ["VIGIL_CONNECTION_APPROVED_CERTIFICATES": value])
        #expect(approved.status == 78, "\(value): \(approved.standardError)")
    }
}
