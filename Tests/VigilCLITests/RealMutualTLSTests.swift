import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// Vigil against real mutual-TLS servers nobody on the team wrote: Debian's nginx with
/// `ssl_verify_client on` in front of the simulator, and `openssl s_server -Verify`.
@Suite(
    "Mutual TLS against nginx and openssl", .serialized,
    .enabled(if: TestPaths.keyringDirectory != nil && RunningNginx.isInstalled, "needs a Secret Service and nginx: run `make test`"),
    .timeLimit(.minutes(3)))
struct RealMutualTLSTests {
    let home: URL
    let environment: [String: String?]

    init() throws {
        home = try TestPaths.temporaryDirectory()
        environment = ["HOME": home.appendingPathComponent("home").path, "XDG_STATE_HOME": home.appendingPathComponent("state").path]
    }

    func vigil(_ arguments: [String], input: String? = nil) async throws -> CommandResult {
        try await CommandRunner.vigilDetached(
            arguments + ["--database", home.appendingPathComponent("vigil.sqlite").path], environment: environment, input: input.map { Data($0.utf8) })
    }

    /// The acceptance: a PKCS#12 and a passphrase file add the account through nginx;
    /// the key is in no file and no output; a later process checks it; without a certificate,
    /// exit 1 naming client certificates and the issuer nginx accepts.
    @Test func anAccountBehindNginxWithSSLVerifyClientOn() async throws {
        try await withRunningSimulator("basic-only") { (server) async throws in
            let nginx = try RunningNginx(upstream: server.url(path: ""))
            defer { nginx.stop() }
            let passphrase = home.appendingPathComponent("passphrase").path
            try "client-test-passphrase\n".write(toFile: passphrase, atomically: true, encoding: .utf8)
            let added = try await vigil(
                [
                    "account", "add", nginx.url, "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle, "--log-level", "trace",
                    "--client-certificate", TestPaths.testcert("client-alice.p12"), "--client-certificate-passphrase-file", passphrase,
                ], input: "alice-test-password\n")
            #expect(added.status == 0, "\(added.standardOutput)\(added.standardError)")
            let key = try String(contentsOfFile: TestPaths.testcert("client-alice.key"), encoding: .utf8).split(separator: "\n").filter {
                !$0.hasPrefix("-----")
            }
            for line in key { #expect(!(added.standardOutput + added.standardError).contains(line)) }
            for file in FileManager.default.enumerator(atPath: home.path)?.compactMap({ $0 as? String }) ?? [] {
                let text = String(decoding: FileManager.default.contents(atPath: home.path + "/" + file) ?? Data(), as: UTF8.self)
                #expect(!key.contains { text.contains($0) }, "\(file) holds the key")
            }
            #expect(server.simulator.journal.entries.contains { $0.method == "PROPFIND" && $0.accepted == true }, "through nginx to the server")

            let id = try #require(
                (try JSONSerialization.jsonObject(with: Data(try await vigil(["account", "list", "--json"]).standardOutput.utf8)) as? [[String: Any]])?.first?[
                    "id"]
                    as? String)
            let checked = try await vigil(["account", "check", id, "--ca-file", TestPaths.caBundle])
            #expect(checked.status == 0, "\(checked.standardOutput)\(checked.standardError)")
            #expect(try await vigil(["account", "remove", id]).status == 0)

            let without = try await vigil(
                ["account", "add", nginx.url, "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle], input: "alice-test-password\n")
            #expect(
                without.status == 1 && without.errorCode == "HTTPError client-certificate-required" && without.standardError.contains("Vigil Test Client CA"),
                "\(without.standardError)")
        }
    }

    /// nginx with `ssl_verify_client optional` answers its own 400 page: recognised as the refusal it is.
    @Test func nginxOptionalAnswers400AndIsReportedAsARefusal() async throws {
        try await withRunningSimulator("basic-only") { (server) async throws in
            let nginx = try RunningNginx(upstream: server.url(path: ""), clientCA: TestPaths.testcert("client-ca.pem"), verify: "optional")
            defer { nginx.stop() }
            let refused = try await vigil(
                [
                    "account", "add", nginx.url, "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle, "--client-certificate",
                    TestPaths.testcert("client-unknown-ca.pem"), "--client-key", TestPaths.testcert("client-unknown-ca.key"),
                ], input: "alice-test-password\n")
            #expect(refused.status == 1 && refused.errorCode == "HTTPError client-certificate-refused", "\(refused.standardError)")
            #expect(!server.simulator.journal.entries.contains { $0.authorization }, "no password got through")
        }
    }

    /// openssl s_server -Verify: inspect says the server requires a certificate and names the
    /// issuer, under TLS 1.3 and TLS 1.2; with --client-certificate, it is accepted.
    @Test(arguments: ["-tls1_3", "-tls1_2"])
    func inspectAgainstOpenSSLServerVerify(tls: String) async throws {
        let server = try TLSTestServer(case: "valid-127.0.0.1", demandingClientCertificatesFrom: TestPaths.testcert("client-ca.pem"), tls: tls)
        defer { server.stop() }
        let shown = try await CommandRunner.vigilDetached(["inspect", server.url, "--ca-file", TestPaths.caBundle, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(shown.standardOutput.utf8)) as? [String: Any])
        let connection = try #require(report["connection"] as? [String: Any], "\(shown.standardOutput)\(shown.standardError)")
        #expect(connection["clientCertificate"] as? String == "required", "\(connection)")
        #expect((connection["acceptedIssuers"] as? [String])?.first?.contains("Vigil Test Client CA") == true)
        if tls == "-tls1_2" { #expect((connection["clientCertificateFinding"] as? String)?.contains("in clear") == true) }
        let presented = try await CommandRunner.vigilDetached([
            "inspect", server.url, "--ca-file", TestPaths.caBundle, "--client-certificate", TestPaths.testcert("client-alice.pem"), "--client-key",
            TestPaths.testcert("client-alice.key"),
        ])
        #expect(presented.standardOutput.contains("client certificate presented: accepted"), "\(presented.standardOutput)\(presented.standardError)")
    }

    /// A key on a token (SoftHSM2 through OpenSSL's pkcs11 engine): the account keeps the token's
    /// URI and PIN in the keyring, never the key (which never leaves the token); a later check
    /// presents it; a wrong PIN is exit 2.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/softhsm2-util"), "needs softhsm2"))
    func aKeyOnASoftHSMToken() async throws {
        let tokens = home.appendingPathComponent("tokens")
        try FileManager.default.createDirectory(at: tokens, withIntermediateDirectories: true)
        let conf = home.appendingPathComponent("softhsm2.conf").path
        try "directories.tokendir = \(tokens.path)\nobjectstore.backend = file\nlog.level = ERROR\n".write(toFile: conf, atomically: true, encoding: .utf8)
        let softhsm: [String: String?] = ["SOFTHSM2_CONF": conf]
        let initialised = try CommandRunner.run(
            "/usr/bin/softhsm2-util", ["--init-token", "--free", "--label", "vigil-test", "--pin", "246810", "--so-pin", "135791"], environment: softhsm)
        #expect(initialised.status == 0, "\(initialised.standardError)")
        try CommandRunner.openssl(["pkcs8", "-topk8", "-nocrypt", "-in", TestPaths.testcert("client-alice.key"), "-out", "alice.pk8"], in: home)
        let imported = try CommandRunner.run(
            "/usr/bin/softhsm2-util",
            ["--import", home.appendingPathComponent("alice.pk8").path, "--token", "vigil-test", "--label", "alice", "--id", "01", "--pin", "246810"],
            environment: softhsm)
        #expect(imported.status == 0, "\(imported.standardError)")
        try FileManager.default.removeItem(at: home.appendingPathComponent("alice.pk8"))
        let pin = home.appendingPathComponent("pin").path, wrongPin = home.appendingPathComponent("wrong-pin").path
        try "246810\n".write(toFile: pin, atomically: true, encoding: .utf8)
        try "000000\n".write(toFile: wrongPin, atomically: true, encoding: .utf8)
        var environment = self.environment
        environment["SOFTHSM2_CONF"] = conf
        let uri = "pkcs11:token=vigil-test;object=alice;type=private"
        try await withRunningSimulator("mtls-required") { (server) async throws in
            func add(_ pinFile: String) async throws -> CommandResult {
                try await CommandRunner.vigilDetached(
                    [
                        "account", "add", server.url(path: ""), "--user", "alice", "--method", "basic", "--password-stdin", "--ca-file", TestPaths.caBundle,
                        "--client-certificate", TestPaths.testcert("client-alice.pem"), "--client-key", uri, "--client-certificate-passphrase-file", pinFile,
                        "--database", home.appendingPathComponent("vigil.sqlite").path,
                    ], environment: environment, input: Data("alice-test-password\n".utf8))
            }
            let wrong = try await add(wrongPin)
            #expect(wrong.status == 2 && wrong.errorCode == "ClientIdentityError no-key", "\(wrong.standardError)")
            let added = try await add(pin)
            #expect(added.status == 0, "\(added.standardOutput)\(added.standardError)")
            #expect(server.simulator.journal.connections.contains { $0.clientCertificate == "CN=alice" }, "presented from the token")
            let listed = try await CommandRunner.vigilDetached(
                ["account", "list", "--json", "--database", home.appendingPathComponent("vigil.sqlite").path], environment: environment)
            let id = try #require((try JSONSerialization.jsonObject(with: Data(listed.standardOutput.utf8)) as? [[String: Any]])?.first?["id"] as? String)
            let checked = try await CommandRunner.vigilDetached(
                ["account", "check", id, "--ca-file", TestPaths.caBundle, "--database", home.appendingPathComponent("vigil.sqlite").path],
                environment: environment)
            #expect(checked.status == 0, "a later process unlocks the token with the PIN from the keyring: \(checked.standardOutput)\(checked.standardError)")
            for file in FileManager.default.enumerator(atPath: home.path)?.compactMap({ $0 as? String }) ?? [] where !file.hasPrefix("tokens") && file != "pin"
            {
                let text = String(decoding: FileManager.default.contents(atPath: home.path + "/" + file) ?? Data(), as: UTF8.self)
                #expect(!text.contains("246810"), "\(file) holds the PIN")
            }
            _ = try await CommandRunner.vigilDetached(
                ["account", "remove", id, "--database", home.appendingPathComponent("vigil.sqlite").path], environment: environment)
        }
    }
}
