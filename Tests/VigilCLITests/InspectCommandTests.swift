import Foundation
import Testing
import VigilTestSupport

/// Runs the built `vigil` binary and checks output and exit codes (docs/cli.md).
@Suite("vigil inspect", .serialized, .timeLimit(.minutes(3)))
struct InspectCommandTests {
    enum Exit { static let trusted: Int32 = 0, untrusted: Int32 = 1, error: Int32 = 2, usage: Int32 = 64 }

    func inspectFile(_ name: String, host: String = "127.0.0.1", extra: [String] = []) throws -> CommandResult {
        try CommandRunner.vigil(["inspect", "--file", TestPaths.testcert("\(name)-chain.pem"), "--host", host, "--ca-file", TestPaths.caBundle] + extra)
    }

    @Test func trustedFileExitsZeroAndSaysSoFirst() throws {
        let result = try inspectFile("valid-127.0.0.1")
        #expect(result.status == Exit.trusted)
        #expect(result.standardOutput.hasPrefix("TRUSTED"))
        #expect(result.standardOutput.contains("SPKI pin (SHA-256):"))
        #expect(!result.standardOutput.contains("\u{1B}["), "no colours when stdout is not a TTY")
    }

    @Test(arguments: [
        "expired", "not-yet-valid", "wrong-host", "self-signed", "untrusted-root", "incomplete-chain", "rsa-1024", "sha1-intermediate", "mitm-forged",
        "cn-only",
    ])
    func untrustedFilesExitOne(name: String) throws {
        let result = try inspectFile(name)
        #expect(result.status == Exit.untrusted)
        #expect(result.standardOutput.hasPrefix("UNTRUSTED"))
        #expect(result.standardOutput.contains("[OpenSSL "))
    }

    @Test func jsonFollowsSchemaOne() throws {
        let result = try inspectFile("valid-127.0.0.1", extra: ["--json"])
        #expect(result.status == Exit.trusted)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any])
        #expect(json["schemaVersion"] as? Int == 1)
        let verdict = try #require(json["verdict"] as? [String: Any])
        #expect(verdict["trusted"] as? Bool == true)
        #expect((verdict["basis"] as? [String: Any])?["source"] as? String == "ca-file")
        let certificates = try #require(json["certificates"] as? [[String: Any]])
        #expect(certificates.count == 2)
        let fingerprints = try #require(certificates[0]["fingerprints"] as? [String: Any])
        #expect(fingerprints.keys.sorted() == ["sha1", "sha256", "spkiSHA256"])
        let chain = try #require(json["chain"] as? [String: Any])
        #expect((chain["verified"] as? [Any])?.count == 3)
        let target = try #require(json["target"] as? [String: Any])
        #expect(target["kind"] as? String == "files")
    }

    /// "What you can do" suggests a CA file only where trust in an issuer is what is missing, and
    /// only when none was given: never for an expired certificate or under a CA file that does not
    /// vouch for a forged chain (issue 48).
    @Test func aCAFileIsSuggestedOnlyWhereOneCanHelp() throws {
        for name in ["expired-chain", "mitm-forged-chain"] {
            let given = try CommandRunner.vigil(["inspect", "--file", TestPaths.testcert("\(name).pem"), "--ca-file", TestPaths.caBundle])
            #expect(given.status == Exit.untrusted && !given.standardOutput.contains("--ca-file CA.pem"), "\(name): \(given.standardOutput)")
        }
        let forged = try CommandRunner.vigil(["inspect", "--file", TestPaths.testcert("mitm-forged-chain.pem"), "--ca-file", TestPaths.caBundle])
        #expect(forged.standardOutput.contains("do not vouch for this chain"), "\(forged.standardOutput)")
        let unknown = try CommandRunner.vigil(["inspect", "--file", TestPaths.testcert("untrusted-root-chain.pem")])
        #expect(unknown.standardOutput.contains("--ca-file CA.pem"), "no CA file given, an unknown issuer: \(unknown.standardOutput)")
    }

    @Test func atMovesTheEvaluationTime() throws {
        let result = try inspectFile("valid-127.0.0.1", extra: ["--at", "2130-01-01T00:00:00Z"])
        #expect(result.status == Exit.untrusted)
        #expect(result.standardOutput.contains("expired"))
    }

    @Test func sslCertFileIsHonouredForTheSystemStore() throws {
        let chain = TestPaths.testcert("valid-127.0.0.1-chain.pem")
        let trusted = try CommandRunner.vigil(
            ["inspect", "--file", chain, "--host", "127.0.0.1"], environment: ["SSL_CERT_FILE": TestPaths.caBundle, "SSL_CERT_DIR": "/nonexistent"])
        #expect(trusted.status == Exit.trusted)
        #expect(trusted.standardOutput.contains("system-store, locally added"))
        let untrusted = try CommandRunner.vigil(
            ["inspect", "--file", chain, "--host", "127.0.0.1"], environment: ["SSL_CERT_FILE": "/nonexistent", "SSL_CERT_DIR": "/nonexistent"])
        #expect(untrusted.status == Exit.untrusted)
    }

    @Test func derFileWorks() throws {
        let result = try CommandRunner.vigil([
            "inspect", "--file", TestPaths.testcert("valid-127.0.0.1.der"), TestPaths.testcert("intermediate-ca.pem"), "--host", "127.0.0.1", "--ca-file",
            TestPaths.caBundle,
        ])
        #expect(result.status == Exit.trusted)
    }

    @Test func badFilesGiveOneLineAndExitTwo() throws {
        let directory = try TestPaths.temporaryDirectory()
        let der = try Data(contentsOf: URL(fileURLWithPath: TestPaths.testcert("valid-127.0.0.1.der")))
        let files: [(String, Data)] = [
            ("empty.pem", Data()),
            ("garbage.pem", Data("this is not a certificate\n".utf8)),
            ("truncated.der", der.prefix(200)),
            ("truncated.pem", Data("-----BEGIN CERTIFICATE-----\nMIIB".utf8)),
            ("binary.bin", Data([0xff, 0xfe, 0x00, 0x01])),
        ]
        var paths = [directory.path, "/nonexistent/cert.pem"]
        for (name, data) in files {
            let url = directory.appendingPathComponent(name)
            try data.write(to: url)
            paths.append(url.path)
        }
        for path in paths {
            let result = try CommandRunner.vigil(["inspect", "--file", path])
            #expect(result.status == Exit.error, "\(path)")
            #expect(result.standardOutput.isEmpty)
            let lines = result.standardError.split(separator: "\n")
            #expect(lines.count == 1, "\(path): \(result.standardError)")
            #expect(result.standardError.hasPrefix("vigil: error: "))
        }
    }

    @Test(arguments: [
        ["inspect"], ["inspect", "--bogus"], ["inspect", "https://x", "--file", "a.pem"], ["inspect", "--file", "a.pem", "--at", "yesterday"],
        ["inspect", "https://127.0.0.1", "--host", "x"],
    ])
    func usageErrorsExitSixtyFour(arguments: [String]) throws {
        #expect(try CommandRunner.vigil(arguments).status == Exit.usage)
    }

    /// The parser validates a command before it looks for options nobody used: a mistyped flag
    /// must still be the error named, whatever else is missing (issue 39).
    @Test(arguments: [
        (["inspect", "--bogus"], "--bogus"), (["account", "check", "--bogus"], "--bogus"), (["account", "remove", "-yq"], "-q"),
        (["certificates", "approve", "--fingerprnt=AB"], "--fingerprnt"),
    ])
    func anUnknownFlagIsNamed(arguments: [String], flag: String) throws {
        let result = try CommandRunner.vigil(arguments)
        #expect(result.status == Exit.usage)
        #expect(result.standardError.hasPrefix("Error: Unknown option '\(flag)'"), "\(result.standardError)")
        #expect(result.standardError.contains("Usage: vigil \(arguments[0])"))
        #expect(!result.standardError.contains("Help:"))
    }

    /// A slip of the keyboard is answered with the option meant; a word far from any is not.
    @Test func aMistypedFlagNamesTheOneMeant() throws {
        let slip = try CommandRunner.vigil(["inspect", "--ca-flie", "x"])
        #expect(
            slip.status == Exit.usage && slip.standardError.hasPrefix("Error: Unknown option '--ca-flie' (did you mean '--ca-file'?)"), "\(slip.standardError)")
        let far = try CommandRunner.vigil(["inspect", "--bogus"])
        #expect(far.status == Exit.usage && !far.standardError.contains("did you mean"), "\(far.standardError)")
    }

    /// A hostile CA hides a must-staple demand where a lax reader would miss it (a second
    /// SEQUENCE after a harmless one): a server that staples nothing is refused, the same in two
    /// processes; the harmless TLS Feature alone is no demand.
    @Test func aHiddenMustStapleDemandIsHeld() throws {
        let directory = try TestPaths.temporaryDirectory()
        func run(_ arguments: [String]) throws { try CommandRunner.openssl(arguments, in: directory) }
        try run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=Hostile CA",
            "-days", "2", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
        func served(tlsFeature: String) throws -> TLSTestServer {
            let name = tlsFeature.replacingOccurrences(of: ":", with: "")
            try run([
                "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "\(name).key", "-out", "\(name).csr", "-subj",
                "/CN=127.0.0.1",
            ])
            let extensions = directory.appendingPathComponent("\(name).ext")
            try "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n1.3.6.1.5.5.7.1.24=DER:\(tlsFeature)\n".write(
                to: extensions, atomically: true, encoding: .utf8)
            try run([
                "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "1", "-extfile", extensions.path,
                "-out", "\(name).pem",
            ])
            return try TLSTestServer(
                certificateFile: directory.appendingPathComponent("\(name).pem").path, keyFile: directory.appendingPathComponent("\(name).key").path)
        }
        let ca = directory.appendingPathComponent("ca.pem").path
        let hidden = try served(tlsFeature: "30:03:02:01:01:30:03:02:01:05")
        defer { hidden.stop() }
        let first = try CommandRunner.vigil(["inspect", hidden.url, "--ca-file", ca])
        let second = try CommandRunner.vigil(["inspect", hidden.url, "--ca-file", ca])
        for result in [first, second] {
            #expect(result.status == Exit.untrusted && result.standardOutput.contains("must-staple"), "\(result.standardOutput)")
        }
        let harmless = try served(tlsFeature: "30:03:02:01:01")
        defer { harmless.stop() }
        let plain = try CommandRunner.vigil(["inspect", harmless.url, "--ca-file", ca])
        #expect(plain.status == Exit.trusted && !plain.standardOutput.contains("must-staple"), "\(plain.standardOutput)")
    }

    @Test func liveHostTrustedUntrustedAndJSON() throws {
        let server = try TLSTestServer(case: "valid-127.0.0.1")
        defer { server.stop() }
        let trusted = try CommandRunner.vigil(["inspect", server.url, "--ca-file", TestPaths.caBundle])
        #expect(trusted.status == Exit.trusted)
        #expect(trusted.standardOutput.contains("connection: TLSv1"))
        let system = try CommandRunner.vigil(["inspect", server.url], environment: ["SSL_CERT_FILE": "/nonexistent", "SSL_CERT_DIR": "/nonexistent"])
        #expect(system.status == Exit.untrusted)
        let json = try CommandRunner.vigil(["inspect", server.url, "--ca-file", TestPaths.caBundle, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        #expect((object["target"] as? [String: Any])?["kind"] as? String == "host")
        #expect((object["connection"] as? [String: Any])?["protocolVersion"] as? String != nil)
    }

    /// Revocation in the verdict, text and JSON: a revoked leaf exits 1 with the CRL's answer; an
    /// outage is a finding under the default soft-fail and a refusal under hard-fail (a setting).
    @Test func revocationIsShownAndDecides() async throws {
        try await withRunningSimulator("revoked-by-crl") { running in
            let url = running.url(path: "")
            let text = try CommandRunner.vigil(["inspect", url, "--ca-file", TestPaths.caBundle])
            #expect(text.status == Exit.untrusted)
            #expect(text.standardOutput.contains("has been revoked by its CA") && text.standardOutput.contains("REVOKED (crl http://127.0.0.1:"))
            let json = try CommandRunner.vigil(["inspect", url, "--ca-file", TestPaths.caBundle, "--json"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
            let verdict = try #require(object["verdict"] as? [String: Any])
            let revocation = try #require(verdict["revocation"] as? [String: Any])
            #expect(revocation["policy"] as? String == "soft-fail" && revocation["stapled"] == nil)
            let checks = try #require(revocation["checks"] as? [[String: Any]])
            #expect(checks.first?["source"] as? String == "crl" && checks.first?["status"] as? String == "revoked")
            #expect((verdict["reasons"] as? [[String: Any]])?.compactMap { $0["code"] as? String }.contains("revoked") == true)
        }
        try await withRunningSimulator("ocsp-responder-down") { running in
            let url = running.url(path: "")
            let soft = try CommandRunner.vigil(["inspect", url, "--ca-file", TestPaths.caBundle])
            #expect(
                soft.status == Exit.trusted && soft.standardOutput.contains("[finding] The revocation status of the server certificate could not be learnt"))
            let hard = try CommandRunner.vigil(
                ["inspect", url, "--ca-file", TestPaths.caBundle], environment: ["VIGIL_CONNECTION_REVOCATION_POLICY": "hard-fail"])
            #expect(hard.status == Exit.untrusted && hard.standardOutput.contains("connection.revocation-policy is hard-fail"))
        }
    }

    @Test(arguments: ["expired", "self-signed", "untrusted-root", "incomplete-chain", "mitm-forged"])
    func liveUntrustedHostsExitOne(name: String) throws {
        let server = try TLSTestServer(case: name)
        defer { server.stop() }
        let result = try CommandRunner.vigil(["inspect", server.url, "--ca-file", TestPaths.caBundle])
        #expect(result.status == Exit.untrusted, "\(name): \(result.standardOutput)")
    }

    @Test func httpsProxyFromTheEnvironmentIsUsed() throws {
        let server = try TLSTestServer(case: "valid-127.0.0.1")
        defer { server.stop() }
        let proxy = ConnectProxy()
        let environment: [String: String?] = [
            "https_proxy": "http://127.0.0.1:\(proxy.port)", "HTTPS_PROXY": nil,
            "no_proxy": nil, "NO_PROXY": nil, "all_proxy": nil, "ALL_PROXY": nil,
        ]
        let result = try CommandRunner.vigil(["inspect", server.url, "--ca-file", TestPaths.caBundle], environment: environment)
        #expect(result.status == Exit.trusted, "\(result.standardError)")
        #expect(proxy.tunnels == ["127.0.0.1:\(server.port)"])
        // no_proxy is honoured too.
        let direct = try CommandRunner.vigil(
            ["inspect", server.url, "--ca-file", TestPaths.caBundle],
            environment: environment.merging(["no_proxy": "127.0.0.1"]) { $1 })
        #expect(direct.status == Exit.trusted)
        #expect(proxy.tunnels.count == 1)
    }

    @Test func unreachableAndNonTLSHostsExitTwo() throws {
        let refused = try CommandRunner.vigil(["inspect", "https://127.0.0.1:\(closedLoopbackPort())"])
        #expect(refused.status == Exit.error)
        #expect(refused.standardError.contains("could not connect"))
        let plain = SilentListener(reply: Data("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8))
        let notTLS = try CommandRunner.vigil(["inspect", "https://127.0.0.1:\(plain.port)"])
        #expect(notTLS.status == Exit.error)
        #expect(notTLS.standardError.contains("did not answer with TLS"))
        let silent = SilentListener()
        let timeout = try CommandRunner.vigil(["inspect", "https://127.0.0.1:\(silent.port)", "--timeout", "0.5"])
        #expect(timeout.status == Exit.error)
        #expect(timeout.standardError.contains("timeout"))
        let http = try CommandRunner.vigil(["inspect", "http://127.0.0.1"])
        #expect(http.status == Exit.error)
    }
}

/// Colours only on a terminal, and never with NO_COLOR: run under a pseudo-terminal (util-linux `script`).
@Suite("Terminal colours", .timeLimit(.minutes(3)))
struct TerminalColourTests {
    func underTTY(_ environment: String) throws -> String {
        let command =
            "\(environment) '\(TestPaths.vigilBinary)' inspect --file '\(TestPaths.testcert("expired-chain.pem"))' --host 127.0.0.1 --ca-file '\(TestPaths.caBundle)'"
        return try CommandRunner.run(
            "/usr/bin/script", ["-qec", command, "/dev/null"],
            environment: ["XDG_CONFIG_HOME": "/nonexistent", "XDG_STATE_HOME": try TestPaths.temporaryDirectory().path, "TERM": "xterm"]
        ).standardOutput
    }

    @Test func coloursOnATerminal() throws {
        let output = try underTTY("env -u NO_COLOR")
        #expect(output.contains("\u{1B}[31;1mUNTRUSTED\u{1B}[0m"))
    }

    @Test func noColourWithNO_COLOR() throws {
        let output = try underTTY("env NO_COLOR=1")
        #expect(output.contains("UNTRUSTED"))
        #expect(!output.contains("\u{1B}["))
    }
}
