import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// Broken cryptography cannot be approved, with the right fingerprint or not, by `certificates
/// approve` or `account add --approve-certificate`; nothing is stored and nothing is sent.
@Suite("Unapprovable certificates", .serialized, .timeLimit(.minutes(3)))
struct UnapprovableCertificateTests {

    @Test(arguments: [
        ("weak-rsa-1024", "rsa-1024", "1024-bit RSA"), ("sha1-intermediate", "sha1-intermediate", "sha1WithRSAEncryption"),
        ("ca-as-leaf", "ca-as-leaf", "CA certificate"),
    ])
    func refusedEverywhere(scenario: String, certificate: String, words: String) async throws {
        try await withRunningSimulator(scenario) { (running) async throws in
            let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
            let url = running.url(path: "")
            let fingerprint = try TestPaths.sha256Fingerprint(of: certificate)

            let approve = try await CommandRunner.vigilDetached([
                "certificates", "approve", url, "--fingerprint", fingerprint, "--ca-file", TestPaths.caBundle, "--database", database,
            ])
            #expect(approve.status == 1, "\(approve.standardOutput)\(approve.standardError)")
            #expect(approve.standardError.contains("cannot be approved") && approve.standardError.contains(words), "\(approve.standardError)")
            #expect(
                try await CommandRunner.vigilDetached(["certificates", "list", "--database", database]).standardOutput.contains("no approved certificates"))

            let add = try await CommandRunner.vigilDetached([
                "account", "add", url, "--user", "alice", "--password-stdin", "--method", "basic",
                "--approve-certificate", fingerprint, "--ca-file", TestPaths.caBundle, "--database", database,
            ])
            #expect(add.status == 1, "\(add.standardOutput)\(add.standardError)")
            #expect(add.standardError.contains("cannot be approved"), "\(add.standardError)")
            #expect(running.simulator.journal.entries.isEmpty, "not one request reached the server")
        }
    }
}
