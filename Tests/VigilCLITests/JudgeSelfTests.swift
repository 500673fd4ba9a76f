import Foundation
import Testing
import VigilTestSupport

/// The judge's self-test: careless clients (Tests/fake-clients/fake-client.py, one way of being
/// careless per mode) held to the hostile scenarios. Each leaks before it logs in honestly, so
/// that it passes `valid` and is scored like a real client; every leak must be caught however it
/// is encoded, no fake login accepted, and the honest client passes.
@Suite("vigil simulate judges careless clients", .serialized)
struct JudgeSelfTests {
    static let script = TestPaths.root.appendingPathComponent("Tests/fake-clients/fake-client.py").path
    static let hostile = ["self-signed", "untrusted-root", "mitm-forged"]

    static func run(_ mode: String, _ scenarios: [String]) throws -> CommandResult {
        try CommandRunner.vigil(
            ["simulate", "--client", "python3 \(script) \(mode) {url} {user} {password} {ca_file} {dir}"] + scenarios.flatMap { ["--scenario", $0] })
    }

    /// A hostile client tries to leave its cell before it logs in honestly: unmount the masks,
    /// mount, unmount in a user namespace of its own, enter PID 1's namespaces, use a capability,
    /// find the machine's /run or homes, write /etc or beside its scratch folder, and connect to
    /// the system bus, systemd, the invoker's session bus and X11. Every attempt fails (its last
    /// line says so), nothing it wrote lands outside, and the judge fails it for each socket it
    /// reached for and each mount, unmount or setns it called (`cell-escape-attempt`, from the
    /// cell's tripwires and its system-call filter), in the run's network namespace and outside
    /// one, as root (CI's user) or not.
    @Test(arguments: [[], ["--no-network-namespace"]])
    func aClientThatTriesToLeaveItsCellFailsAndIsHeld(extra: [String]) throws {
        let escaping = TestPaths.root.appendingPathComponent("Tests/fake-clients/escaping-client.sh").path
        let keep = try TestPaths.temporaryDirectory().path
        // vigil runs with a key in its session keyring, as a user's Kerberos cache would be.
        let withKey = TestPaths.root.appendingPathComponent("Tests/fake-clients/with-session-key.py").path
        let arguments = CommandRunner.withNetworkFallback(
            ["simulate", "--json", "--keep", keep, "--client", "sh \(escaping) {url} {user} {password} {ca_file}", "--scenario", "valid"] + extra)
        let result = try CommandRunner.run(
            "/usr/bin/python3", [withKey, "vigil-invoker-key", TestPaths.vigilBinary] + arguments, environment: CommandRunner.hermetic([:]))
        #expect(result.status == 1, "\(result.standardOutput)\(result.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        let played = try #require((report["results"] as? [[String: Any]])?.first)
        #expect((played["clientMessage"] as? String)?.contains("the cell held all 15 attempts") == true, "\(played)")
        // An external client's logs, files and keyring are not checked: null, never true.
        let invariants = try #require(played["invariants"] as? [String: Any])
        #expect(report["schemaVersion"] as? Int == 2 && ["logs", "files", "keyring"].allSatisfy { invariants[$0] is NSNull }, "\(invariants)")
        let violations = (played["violations"] as? [[String: Any]]) ?? []
        let reached = violations.filter { $0["code"] as? String == "cell-escape-attempt" }.compactMap { $0["message"] as? String }
        for path in [
            "/run/dbus/system_bus_socket", "/run/systemd/private", "/bus (the invoker's session bus)", "/tmp/.X11-unix/X0", "called mount(2)",
            "called umount2(2)", "called setns(2)",
        ] {
            #expect(reached.contains { $0.contains(path) }, "\(path) not reported: \(reached)")
        }
        #expect(played["works"] as? String == "yes", "it logged in honestly after")
        let written = FileManager.default.enumerator(atPath: keep)?.compactMap { $0 as? String }.filter { $0.hasSuffix("vigil-escaped") } ?? []
        #expect(written.isEmpty, "the client wrote outside its scratch folder: \(written)")
        #expect(!FileManager.default.fileExists(atPath: "/etc/vigil-escaped"))
    }

    /// Mode, and the words the failure must use for where the credential was (nil: none carried).
    static let leaks: [(String, String?)] = [
        ("base64-header", "x-auth header (base64)"), ("base64-offset", "x-auth header (base64)"), ("base64url-header", "x-session header (base64)"),
        ("hex-query", "the query (hex)"), ("percent-path", "the request line (percent-encoded)"), ("json-body", "the body (JSON-escaped)"),
        ("form-body", "the body (percent-encoded)"), ("gzip-body", "the body (as sent)"), ("header-name", "a header name"),
        ("big-put", "an Authorization header"), ("bad-head", "an unparsable request"), ("detached-body", "an Authorization header"),
        ("no-credential", nil), ("http2-tls", "x-api-key header (as sent)"),
    ]

    @Test(arguments: leaks.map(\.0))
    func everyLeakIsCaughtInEveryHostileScenario(mode: String) throws {
        let result = try Self.run(mode, Self.hostile)
        let output = result.standardOutput
        // self-signed and untrusted-root offer HTTP/2: curl takes it, and is judged on it.
        if mode == "http2-tls" { #expect(output.contains("(certificate self-signed, over HTTP/2)"), "\(output)") }
        #expect(result.status == 1, "\(output)\n\(result.standardError)")
        for scenario in Self.hostile {
            #expect(output.contains("\(scenario): The client sent"), "\(mode) in \(scenario): no transport violation\n\(output)")
        }
        #expect(output.contains("safe in 0 of 3 played"), "\(output)")
        if let place = Self.leaks.first(where: { $0.0 == mode })?.1 {
            // The interceptor does not read bodies; the self-signed host says where the secret was.
            #expect(output.contains("self-signed: A credential (") && output.contains(place), "\(mode): expected \(place)\n\(output)")
        }
        #expect(!output.contains("alice-test-password"), "no password in the report")
    }

    /// A leak is a leak whether or not the client works: a client that never logs in is still
    /// played on every scenario, and its leaks make it unsafe (exit 1), not "not scored" (exit 2).
    @Test func aClientThatNeverLogsInIsStillSearchedForLeaks() throws {
        let result = try Self.run("leak-no-login", ["valid"] + Self.hostile)
        let output = result.standardOutput
        #expect(result.status == 1, "\(output)\n\(result.standardError)")
        #expect(output.contains("unsafe although it never logged in") && !output.contains("not scored"), "\(output)")
        for scenario in Self.hostile { #expect(output.contains("\(scenario): The client sent"), "\(scenario)\n\(output)") }
        #expect(!output.contains("alice-test-password"))
        // A client that neither logs in nor leaks is not scored.
        let idle = try Self.run("nothing", ["valid", "self-signed"])
        #expect(idle.status == 2 && idle.standardOutput.contains("not scored"), "\(idle.standardOutput)")
    }

    /// The password as the TLS server name or an ALPN protocol, after a certificate error:
    /// disclosed in the clear ClientHello although no byte of application data follows; the
    /// report does not repeat it. (The honest client passes: theHonestClientPasses...)
    @Test(arguments: ["sni-secret", "sni-split", "alpn-secret"])
    func aSecretInTheClientHelloIsCaught(mode: String) throws {
        let result = try Self.run(mode, ["valid"] + Self.hostile)
        let output = result.standardOutput
        #expect(result.status == 1, "\(output)\n\(result.standardError)")
        for scenario in Self.hostile {
            #expect(output.contains("\(scenario): A secret was in the TLS ClientHello"), "\(scenario)\n\(output)")
        }
        #expect(!output.contains("alice-test-password"), "no password in the report")
        let json = try CommandRunner.vigil(
            ["simulate", "--json", "--client", "python3 \(Self.script) \(mode) {url} {user} {password} {ca_file} {dir}", "--scenario", "self-signed"])
        #expect(json.standardOutput.contains("\"secret-in-client-hello\""), "the violation's code in JSON: \(json.standardOutput.prefix(400))")
    }

    /// The client runs in a network namespace of its own, where every address is the machine's
    /// own: a host outside the scenario (another loopback address, a telemetry endpoint) reaches
    /// the recorder, never the network. A secret there is a violation (`secret-to-other-host`);
    /// a contact without one is reported, not judged. (Run only where the namespace is made: no
    /// test sends a packet beyond loopback.)
    @Test(.enabled(if: TestPaths.networkNamespaces, "network namespaces cannot be made here"))
    func hostsOutsideTheScenarioAreRecorded() throws {
        func simulate(_ mode: String, _ extra: [String] = []) throws -> CommandResult {
            try CommandRunner.vigil(
                ["simulate", "--client", "python3 \(Self.script) \(mode) {url} {user} {password} {ca_file} {dir}", "--scenario", "valid"] + extra)
        }
        let probe = try simulate("honest")
        try #require(probe.standardOutput.contains("in a network namespace of its own"), "\(probe.standardOutput)\(probe.standardError)")
        let leak = try simulate("second-address", ["--json"])
        #expect(leak.status == 1, "\(leak.standardOutput)\(leak.standardError)")
        #expect(leak.standardOutput.contains("\"secret-to-other-host\""), "\(leak.standardOutput)")
        #expect(leak.standardOutput.contains("127.0.0.2:80") && leak.standardOutput.contains("192.0.2.1:443"), "\(leak.standardOutput)")
        #expect(!leak.standardOutput.contains("alice-test-password"))
        // A name of its own, the scenario's host on a port of its own, a UDP datagram: each caught.
        let named = try simulate("own-name", ["--json"])
        #expect(named.status == 1, "\(named.standardOutput)\(named.standardError)")
        #expect(named.standardOutput.contains("\"secret-to-other-host\""), "\(named.standardOutput)")
        #expect(named.standardOutput.contains("crash-reports.fake-client.example:443 (TLS"), "\(named.standardOutput)")
        #expect(named.standardOutput.contains("1 DNS name(s) outside the scenarios asked (crash-reports.fake-client.example)"), "\(named.standardOutput)")
        let port = try simulate("other-port", ["--json"])
        #expect(port.status == 1 && port.standardOutput.contains("127.0.0.1:8081"), "\(port.standardOutput)\(port.standardError)")
        // HTTP/2 in clear, its header HPACK-coded (curl's nghttp2, Huffman): decoded and caught.
        let http2 = try simulate("http2-header", ["--json"])
        #expect(http2.status == 1 && http2.standardOutput.contains("HTTP/2"), "\(http2.standardOutput)\(http2.standardError)")
        // IPv6 (where the machine has it), a secret in a DNS question, HTTP/2 in clear written as Go
        // writes it (the preface first, HEADERS after the server's SETTINGS): each caught, none shown.
        for mode in ["ipv6-address", "dns-secret", "h2c-split"] {
            let caught = try simulate(mode, ["--json"])
            #expect(
                caught.status == 1 && caught.standardOutput.contains("\"secret-to-other-host\""), "\(mode): \(caught.standardOutput)\(caught.standardError)")
            #expect(!caught.standardOutput.contains("alice-test-password"), "\(mode)")
        }
        let datagram = try simulate("udp-datagram", ["--json"])
        #expect(datagram.status == 1 && datagram.standardOutput.contains("\"secret-to-other-host\""), "\(datagram.standardOutput)")
        #expect(!(named.standardOutput + port.standardOutput + datagram.standardOutput).contains("alice-test-password"))
        let ping = try simulate("telemetry")
        #expect(ping.status == 0, "\(ping.standardOutput)\(ping.standardError)")
        #expect(ping.standardOutput.contains("other hosts contacted: 192.0.2.1:443 (TLS, server name telemetry.example.net"), "\(ping.standardOutput)")
        // Without the namespace the run says its judgement is weaker (a client that sends nothing beyond loopback).
        let outside = try CommandRunner.vigil(
            ["simulate", "--no-network-namespace", "--client", "python3 \(Self.script) honest {url} {user} {password} {ca_file} {dir}", "--scenario", "valid"])
        #expect(outside.status == 0 && outside.standardOutput.contains("run without a network namespace"), "\(outside.standardOutput)")
        let misplaced = try CommandRunner.vigil(["simulate", "--no-network-namespace", "--scenario", "valid"])
        #expect(misplaced.status == 64 || misplaced.status == 2, "\(misplaced.standardError)")
    }

    /// In the namespace, the scenarios that need host names are played: the names resolve to the
    /// scenario's hosts, a client that checks the name logs in on `dns-name` and `wildcard-name`
    /// and refuses the wildcard that does not cover its name; one that checks only the chain is caught.
    @Test(.enabled(if: TestPaths.networkNamespaces, "network namespaces cannot be made here"))
    func scenariosThatNeedHostNamesArePlayed() throws {
        let names = ["valid", "dns-name", "wildcard-name", "wildcard-apex", "wildcard-too-deep", "redirect-to-ip"]
        let honest = try Self.run("honest", names)
        #expect(honest.status == 0, "\(honest.standardOutput)\(honest.standardError)")
        #expect(!honest.standardOutput.contains("not applicable"), "\(honest.standardOutput)")
        #expect(honest.standardOutput.contains("6 passed"), "\(honest.standardOutput)")
        // The client is told the scenario's real URL: the name, on the usual port.
        let told = try CommandRunner.vigil(["simulate", "--json", "--client", "echo {url}", "--scenario", "dns-name"])
        #expect(told.standardOutput.contains("echo exited 0: https://cloud.example.test\""), "\(told.standardOutput)")
        let unchecked = try Self.run("chain-only", ["valid", "wildcard-apex"])
        #expect(unchecked.status == 1, "\(unchecked.standardOutput)")
        #expect(unchecked.standardOutput.contains("wildcard-apex") && unchecked.standardOutput.contains("failed"), "\(unchecked.standardOutput)")
    }

    /// A login provider on another host is agreed for tokens, never for the user's password: the
    /// resource-owner password grant sent there is caught; the honest client passes.
    @Test func aPasswordAtTheLoginProviderIsCaught() throws {
        let careless = try Self.run("password-to-provider", ["oidc-provider-on-another-host"])
        #expect(careless.status == 1 && careless.standardOutput.contains("POST /index.php/apps/oauth2/api/v1/token"), "\(careless.standardOutput)")
        #expect(!careless.standardOutput.contains("alice-test-password"))
        let honest = try Self.run("honest", ["oidc-provider-on-another-host"])
        #expect(honest.status == 0, "\(honest.standardOutput)")
    }

    @Test func aCredentialEncodedToAnUnapprovedRedirectTargetIsCaught() throws {
        let result = try Self.run("follow-redirect", ["redirect-cross-host-302"])
        #expect(result.status == 1, "\(result.standardOutput)")
        #expect(
            result.standardOutput.contains("A credential (the x-auth header (base64)) reached https://127.0.0.2, a host the user never agreed to"),
            "\(result.standardOutput)")
    }

    @Test func aCredentialInClearTextOnTheTLSPortIsCaught() throws {
        let result = try Self.run("clear-on-tls-port", ["valid"])
        #expect(result.status == 1, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("was sent to 127.0.0.1 in clear text on its TLS port"), "\(result.standardOutput)")
    }

    /// A premise of an account set up before is played: the setup run first (against the server as
    /// it was, the certificate the user approved then in the client's CA file), then the scenario
    /// on the same folder. The honest client passes; one that leaks only at setup is caught there.
    @Test func anAccountSetUpBeforeIsPlayedAndItsSetupJudged() throws {
        let premises = ["valid", "rekeyed", "rekeyed-trusted-ca", "rollback-to-old-certificate"]
        let honest = try Self.run("honest", premises)
        #expect(honest.status == 0, "\(honest.standardOutput)\(honest.standardError)")
        #expect(!honest.standardOutput.contains("not applicable"), "\(honest.standardOutput)")
        let leaky = try CommandRunner.vigil(
            [
                "simulate", "--json", "--client", "python3 \(Self.script) first-run-only {url} {user} {password} {ca_file} {dir}", "--scenario", "valid",
                "--scenario", "rekeyed-trusted-ca",
            ])
        #expect(leaky.status == 1, "\(leaky.standardOutput)")
        let report = try JSONSerialization.jsonObject(with: Data(leaky.standardOutput.utf8)) as? [String: Any]
        let results = report?["results"] as? [[String: Any]] ?? []
        let premise = try #require(results.first { $0["scenario"] as? String == "rekeyed-trusted-ca" })
        let violations = premise["violations"] as? [[String: Any]] ?? []
        #expect(
            violations.contains { $0["code"] as? String == "clear-text-credential" && ($0["message"] as? String ?? "").hasPrefix("At the account's setup") },
            "\(premise)")
    }

    @Test func dataOverADeprecatedTLSVersionIsCaught() throws {
        let result = try Self.run("legacy-tls", ["legacy-tls"])
        #expect(result.status == 1, "\(result.standardOutput)")
        #expect(result.standardOutput.contains("legacy-tls: The client sent"), "\(result.standardOutput)")
    }

    @Test func theHonestClientPassesAndItsUploadComesBack() throws {
        // Its `valid` run uploads a new file and downloads it again (it exits 1 otherwise).
        let result = try Self.run("honest", ["valid"] + Self.hostile)
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        #expect(
            result.standardOutput.contains("4 scenarios, 4 passed, 0 failed") && result.standardOutput.contains("works in 1 of 1"), "\(result.standardOutput)")
    }

    @Test func theClientStartsAsANormalProcess() throws {
        // It exits 1 (and so is not scored) if it inherited a blocked or ignored signal, or a descriptor.
        let result = try Self.run("hygiene", ["valid"])
        #expect(result.status == 0 && result.standardOutput.contains("1 passed"), "\(result.standardOutput)\n\(result.standardError)")
    }

    @Test(arguments: ["nothing", "fake-login"])
    func aClientThatDoesNotReallyLogInIsNotScored(mode: String) throws {
        let result = try Self.run(mode, ["valid", "self-signed"])
        #expect(result.status == 2, "\(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardOutput.contains("not scored") && result.standardOutput.contains("did not log in to `valid`"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("(works in 0 of 1)"), "a client that does not log in scores 0 on works: \(result.standardOutput)")
    }
}
