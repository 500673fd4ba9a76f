import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// `vigil account add --client-certificate` against the simulator demanding one (mutual TLS),
/// with a real keyring: the key is kept there and nowhere else, shown nowhere, presented to the
/// account's server in a later process; each refusal with its exit code.
@Suite(
    "Client certificates (CLI)", .serialized,
    .enabled(if: TestPaths.keyringDirectory != nil, "needs a Secret Service: run `make test`"), .timeLimit(.minutes(3)))
struct ClientCertificateCommandTests {
    let home: URL
    let environment: [String: String?]
    static let passphrase = "client-test-passphrase"

    init() throws {
        home = try TestPaths.temporaryDirectory()
        environment = [
            "HOME": home.appendingPathComponent("home").path, "XDG_STATE_HOME": home.appendingPathComponent("state").path,
            "XDG_DATA_HOME": home.appendingPathComponent("data").path,
        ]
    }

    func vigil(_ arguments: [String]) async throws -> CommandResult {
        try await CommandRunner.vigilDetached(
            arguments + ["--database", home.appendingPathComponent("vigil.sqlite").path, "--log-level", "trace"], environment: environment)
    }

    func passphraseFile(_ text: String = passphrase) throws -> String {
        let path = home.appendingPathComponent("passphrase-\(text.count)").path
        try (text + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A line of the key's PEM body: what would show if the key leaked anywhere.
    func keyMaterial() throws -> [String] {
        let pem = try String(contentsOfFile: TestPaths.testcert("client-alice.key"), encoding: .utf8)
        return pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.map(String.init)
    }

    @Test func aPKCS12AccountWorksAndItsKeyStaysInTheKeyring() async throws {
        try await withRunningSimulator("mtls-required") { (running) async throws in
            let add = [
                "account", "add", running.url(path: ""), "--user", "alice", "--method", "basic", "--password-stdin", "--ca-file", TestPaths.caBundle,
                "--client-certificate", TestPaths.testcert("client-alice.p12"), "--client-certificate-passphrase-file", try passphraseFile(),
            ]
            let added = try await CommandRunner.vigilDetached(
                add + ["--database", home.appendingPathComponent("vigil.sqlite").path, "--log-level", "trace"], environment: environment,
                input: Data("alice-test-password\n".utf8))
            #expect(added.status == 0, "\(added.standardOutput)\(added.standardError)")
            #expect(added.standardOutput.contains("Client certificate") && added.standardOutput.contains("CN=alice"), "the review: \(added.standardOutput)")
            let output = added.standardOutput + added.standardError
            for line in try keyMaterial().prefix(2) { #expect(!output.contains(line), "the key is in no output, even at trace") }
            #expect(running.simulator.journal.connections.contains { $0.clientCertificate == "CN=alice" }, "the server got the certificate")

            // In no file under the user's directories (the keyring's own files hold it encrypted).
            let material = try keyMaterial()
            for directory in [home.path, TestPaths.keyringDirectory ?? home.path] {
                let files = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
                for file in files {
                    guard let data = FileManager.default.contents(atPath: directory + "/" + file) else { continue }
                    let text = String(decoding: data, as: UTF8.self)
                    #expect(!material.contains { text.contains($0) }, "\(file) holds the key")
                }
            }

            let listed = try await vigil(["account", "list", "--json"])
            let id = try #require((try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])?.first?["id"] as? String)
            let before = running.simulator.journal.connections.filter { $0.clientCertificate == "CN=alice" }.count
            let checked = try await vigil(["account", "check", id, "--ca-file", TestPaths.caBundle])
            #expect(checked.status == 0, "a later process presents it from the keyring: \(checked.standardOutput)\(checked.standardError)")
            #expect(running.simulator.journal.connections.filter { $0.clientCertificate == "CN=alice" }.count > before)

            // Removed: the next check cannot pass the door, and says so.
            #expect(try await vigil(["account", "edit", id, "--no-client-certificate"]).status == 0)
            let without = try await vigil(["account", "check", id, "--ca-file", TestPaths.caBundle])
            #expect(
                without.status == 1 && without.standardOutput.contains("requires a client certificate")
                    && without.standardOutput.contains("Vigil Test Client CA"), "\(without.standardOutput)\(without.standardError)")
            // Given again with edit: kept in the keyring (on its own queue), and the door opens.
            let given = try await vigil([
                "account", "edit", id, "--client-certificate", TestPaths.testcert("client-alice.p12"), "--client-certificate-passphrase-file",
                try passphraseFile(),
            ])
            #expect(given.status == 0, "\(given.standardOutput)\(given.standardError)")
            let again = try await vigil(["account", "check", id, "--ca-file", TestPaths.caBundle])
            #expect(again.status == 0, "\(again.standardOutput)\(again.standardError)")
            #expect(try await vigil(["account", "remove", id]).status == 0)
        }
    }

    @Test func withoutACertificateTheErrorNamesTheIssuer() async throws {
        try await withRunningSimulator("mtls-required") { (running) async throws in
            let result = try await CommandRunner.vigilDetached(
                [
                    "account", "add", running.url(path: ""), "--user", "alice", "--method", "basic", "--password-stdin", "--ca-file", TestPaths.caBundle,
                    "--database", home.appendingPathComponent("vigil.sqlite").path,
                ], environment: environment, input: Data("alice-test-password\n".utf8))
            #expect(result.status == 1, "\(result.standardError)")
            #expect(
                result.standardError.contains("requires a client certificate") && result.standardError.contains("CN=Vigil Test Client CA")
                    && result.standardError.contains("--client-certificate"), "\(result.standardError)")
            #expect(!running.simulator.journal.entries.contains { $0.authorization }, "no password was sent")
        }
    }

    /// Exit 2 for what cannot be read or opened, exit 1 for what no server should take; nothing kept.
    @Test func refusalsHaveTheirExitCodes() async throws {
        try await withRunningSimulator("mtls-required") { (running) async throws in
            func add(_ extra: [String]) async throws -> CommandResult {
                try await CommandRunner.vigilDetached(
                    [
                        "account", "add", running.url(path: ""), "--user", "alice", "--method", "basic", "--password-stdin", "--ca-file",
                        TestPaths.caBundle, "--database", home.appendingPathComponent("vigil.sqlite").path,
                    ] + extra, environment: environment, input: Data("alice-test-password\n".utf8))
            }
            let p12 = TestPaths.testcert("client-alice.p12")
            let wrong = try await add(["--client-certificate", p12, "--client-certificate-passphrase-file", try passphraseFile("not-the-passphrase")])
            #expect(wrong.status == 2 && wrong.errorCode == "ClientIdentityError wrong-passphrase", "\(wrong.standardError)")
            let mismatch = try await add(["--client-certificate", TestPaths.testcert("client-alice.pem"), "--client-key", TestPaths.testcert("client-rsa.key")])
            #expect(mismatch.status == 2 && mismatch.errorCode == "ClientIdentityError key-mismatch", "\(mismatch.standardError)")
            let missing = try await add(["--client-certificate", home.appendingPathComponent("nothing.p12").path])
            #expect(missing.status == 2 && missing.errorCode == "ClientIdentityError unreadable", "\(missing.standardError)")
            let expired = try await add([
                "--client-certificate", TestPaths.testcert("client-expired.p12"), "--client-certificate-passphrase-file", try passphraseFile(),
            ])
            #expect(expired.status == 1 && expired.errorCode == "AccountSetupError client-certificate", "\(expired.standardError)")
            let serverOnly = try await add([
                "--client-certificate", TestPaths.testcert("client-server-eku.p12"), "--client-certificate-passphrase-file", try passphraseFile(),
            ])
            #expect(serverOnly.status == 1 && serverOnly.errorCode == "AccountSetupError client-certificate", "\(serverOnly.standardError)")
            // A PIN in the key's URI is in the process list while Vigil runs: refused, not echoed.
            for uri in ["pkcs11:token=vigil-test;object=alice?pin-value=8675309", "pkcs11:token=vigil-test;PIN-Value=8675309;object=alice"] {
                let pinned = try await add(["--client-certificate", TestPaths.testcert("client-alice.pem"), "--client-key", uri])
                #expect(
                    pinned.status == 64 && pinned.standardError.contains("pin-value") && !(pinned.standardOutput + pinned.standardError).contains("8675309"),
                    "\(pinned.standardError)")
            }
            #expect(running.simulator.journal.connections.isEmpty, "nothing reached the server for any of them")
            let listed = try await CommandRunner.vigilDetached(
                ["account", "list", "--json", "--database", home.appendingPathComponent("vigil.sqlite").path], environment: environment)
            #expect(
                (try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [Any])?.isEmpty == true,
                "nothing was kept: \(listed.standardOutput)")
        }
    }

    /// An access proxy's service token: kept in the keyring, sent to the server in a later check,
    /// shown nowhere (not even with every HTTP exchange logged at trace); without it, the proxy
    /// is named and nothing is offered for approval.
    @Test func accessHeadersOpenTheDoorAndShowNowhere() async throws {
        try await withRunningSimulator("access-token-required") { (running) async throws in
            let file = home.appendingPathComponent("token.headers").path
            try "# Cloudflare Access service token\nCF-Access-Client-Id: vigil-test.access\nCF-Access-Client-Secret: access-test-secret-3f9a1c\n".write(
                toFile: file, atomically: true, encoding: .utf8)
            var logged = environment
            logged["VIGIL_LOG_HTTP_REQUESTS"] = "true"
            let added = try await CommandRunner.vigilDetached(
                [
                    "account", "add", running.url(path: ""), "--user", "alice", "--method", "basic", "--password-stdin", "--ca-file", TestPaths.caBundle,
                    "--access-headers-file", file, "--database", home.appendingPathComponent("vigil.sqlite").path, "--log-level", "trace",
                ], environment: logged, input: Data("alice-test-password\n".utf8))
            #expect(added.status == 0, "\(added.standardOutput)\(added.standardError)")
            #expect(!(added.standardOutput + added.standardError).contains("access-test-secret-3f9a1c"), "the token is in no output")
            let id = try #require(
                (try JSONSerialization.jsonObject(with: Data(try await vigil(["account", "list", "--json"]).standardOutput.utf8)) as? [[String: Any]])?.first?[
                    "id"]
                    as? String)
            let checked = try await vigil(["account", "check", id, "--ca-file", TestPaths.caBundle])
            #expect(checked.status == 0, "\(checked.standardOutput)\(checked.standardError)")
            #expect(!running.simulator.journal.entries.contains { $0.host != "127.0.0.1" && $0.accessHeaders != nil }, "to the server's origin only")
            #expect(try await vigil(["account", "edit", id, "--no-access-headers"]).status == 0)
            let without = try await vigil(["account", "check", id, "--ca-file", TestPaths.caBundle])
            #expect(without.status == 1 && without.standardOutput.contains("Cloudflare Access"), "\(without.standardOutput)\(without.standardError)")
            // Given again with edit, from a file with CRLF line ends as Windows editors write it:
            // the token goes back into the keyring and the check passes.
            try "CF-Access-Client-Id: vigil-test.access\r\nCF-Access-Client-Secret: access-test-secret-3f9a1c\r\n".write(
                toFile: file, atomically: true, encoding: .utf8)
            let given = try await vigil(["account", "edit", id, "--access-headers-file", file])
            #expect(given.status == 0 && !given.standardOutput.contains("access-test-secret-3f9a1c"), "\(given.standardOutput)\(given.standardError)")
            #expect(try await vigil(["account", "check", id, "--ca-file", TestPaths.caBundle]).status == 0)
            #expect(try await vigil(["account", "remove", id]).status == 0)

            let bad = home.appendingPathComponent("bad.headers").path
            try "Authorization: Bearer stolen-token-value\n".write(toFile: bad, atomically: true, encoding: .utf8)
            let refused = try await vigil(["account", "add", running.url(path: ""), "--user", "alice", "--access-headers-file", bad])
            #expect(refused.status == 2 && refused.errorCode == "AccessHeadersError refused-name" && !refused.standardError.contains("stolen-token-value"))
        }
    }
}
