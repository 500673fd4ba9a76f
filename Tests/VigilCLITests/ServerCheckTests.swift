import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// `vigil server check` against Debian's nginx in real configurations, its accepted versions and
/// suites compared with Debian's sslscan on the same server (not Vigil's code): the same sets.
@Suite(
    "vigil server check", .serialized,
    .enabled(if: RunningNginx.isInstalled && FileManager.default.isExecutableFile(atPath: "/usr/bin/sslscan"), "needs nginx and sslscan: run `make test`"))
struct ServerCheckTests {
    /// (version, OpenSSL suite name) as sslscan's XML lists them (`TLSv1.2`, `AES128-SHA`).
    static func sslscan(_ port: Int) throws -> Set<String> {
        let result = try CommandRunner.run("/usr/bin/sslscan", ["--no-colour", "--xml=-", "127.0.0.1:\(port)"])
        var found: Set<String> = []
        for line in result.standardOutput.split(separator: "\n") where line.contains("<cipher ") {
            func attribute(_ name: String) -> String? {
                line.range(of: " \(name)=\"").map { line[$0.upperBound...].prefix { $0 != "\"" } }.map(String.init)
            }
            if let version = attribute("sslversion"), let cipher = attribute("cipher") { found.insert("\(version) \(cipher)") }
        }
        return found
    }

    /// (version, group) as sslscan's XML lists the key exchange groups (`TLSv1.3 x25519`).
    static func sslscanGroups(_ port: Int) throws -> Set<String> {
        let names = [
            "0x001d": "x25519", "0x0017": "secp256r1", "0x0018": "secp384r1", "0x0019": "secp521r1", "0x001e": "x448", "0x0100": "ffdhe2048",
            "0x0101": "ffdhe3072", "0x0102": "ffdhe4096", "0x0103": "ffdhe6144", "0x0104": "ffdhe8192",
        ]
        let result = try CommandRunner.run("/usr/bin/sslscan", ["--no-colour", "--xml=-", "127.0.0.1:\(port)"])
        var found: Set<String> = []
        for line in result.standardOutput.split(separator: "\n") where line.contains("<group ") {
            func attribute(_ name: String) -> String? {
                line.range(of: " \(name)=\"").map { line[$0.upperBound...].prefix { $0 != "\"" } }.map(String.init)
            }
            // sslscan lists TLS 1.2's finite fields as the DHE group the server sent; only named groups compare.
            if let version = attribute("sslversion"), let id = attribute("id"), let name = names[id.lowercased()] { found.insert("\(version) \(name)") }
        }
        return found
    }

    /// The same groups from `vigil server check --json`.
    static func groups(_ report: [String: Any]) -> Set<String> {
        var found: Set<String> = []
        for version in report["versions"] as? [[String: Any]] ?? [] {
            let name = (version["version"] as? String ?? "").replacingOccurrences(of: "TLS ", with: "TLSv")
            for group in version["groups"] as? [String] ?? [] { found.insert("\(name) \(group)") }
        }
        return found
    }

    /// The same pairs from `vigil server check --json`.
    static func vigil(_ port: Int) throws -> (status: Int32, pairs: Set<String>, codes: Set<String>, report: [String: Any]) {
        let result = try CommandRunner.vigil(["server", "check", "https://127.0.0.1:\(port)", "--ca-file", TestPaths.caBundle, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardError)")
        var pairs: Set<String> = []
        for version in report["versions"] as? [[String: Any]] ?? [] {
            let name = (version["version"] as? String ?? "").replacingOccurrences(of: "TLS ", with: "TLSv")
            for suite in version["suites"] as? [[String: Any]] ?? [] { pairs.insert("\(name) \(suite["openSSLName"] as? String ?? "")") }
        }
        let codes = Set((report["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String })
        return (result.status, pairs, codes, report)
    }

    /// TLS 1.0 to 1.2 with RSA key exchange, CBC suites and a 1024-bit DH group, as an old
    /// server is set up (Debian's OpenSSL 3.0 has no 3DES left to offer).
    @Test func aLegacyServerIsFoundAsSslscanFindsItAndJudged() throws {
        let directory = try TestPaths.temporaryDirectory().path
        try CommandRunner.openssl(["dhparam", "-out", "dh1024.pem", "1024"], in: URL(fileURLWithPath: directory))
        let nginx = try RunningNginx(
            protocols: "TLSv1 TLSv1.1 TLSv1.2",
            ciphers: "\"AES128-SHA:AES256-SHA:ECDHE-RSA-AES128-SHA:DHE-RSA-AES128-SHA:ECDHE-RSA-AES128-GCM-SHA256:@SECLEVEL=0\"",
            dhparam: directory + "/dh1024.pem")
        let expected = try Self.sslscan(nginx.port)
        let found = try Self.vigil(nginx.port)
        #expect(!expected.isEmpty && found.pairs == expected, "vigil: \(found.pairs.sorted())\nsslscan: \(expected.sorted())")
        #expect(found.status == 1, "a finding at warning or above")
        #expect(
            found.codes.isSuperset(of: ["protocol-tls10", "protocol-tls11", "no-forward-secrecy", "weak-dh", "cbc-suites", "no-tls13"]), "\(found.codes)")
        #expect(found.report["schemaVersion"] as? Int == 1)
        let rating = found.report["rating"] as? [String: Any]
        #expect(rating?["grade"] as? String == "F" && (rating?["because"] as? [String])?.contains("weak-dh") == true, "\(rating ?? [:])")
        let levels = (found.report["findings"] as? [[String: Any]] ?? []).compactMap { $0["level"] as? String }
        #expect(levels.first == "error" && levels.last == "notice", "the most serious first: \(levels)")
        // JUnit: one testcase per check, the ones found at or above --fail-on failed with their code.
        let junit = directory + "/server.xml"
        let written = try CommandRunner.vigil(["server", "check", "https://127.0.0.1:\(nginx.port)", "--ca-file", TestPaths.caBundle, "--junit", junit])
        #expect(written.status == 1)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains("<testcase classname=\"server check\" name=\"no-forward-secrecy\">\n      <failure type=\"no-forward-secrecy\""), "\(xml)")
        #expect(xml.contains("<testcase classname=\"server check\" name=\"rc4\"></testcase>"), "a check that found nothing passes")
        let parsed = try CommandRunner.run(
            "/usr/bin/python3", ["-c", "import sys, xml.dom.minidom; print(xml.dom.minidom.parse(sys.argv[1]).documentElement.tagName)", junit])
        #expect(parsed.standardOutput == "testsuites\n", "well-formed: \(parsed.standardError)")
        nginx.stop()
    }

    /// Mozilla's intermediate profile: TLS 1.2 and 1.3, ECDHE with AEAD suites only: nothing above a notice.
    @Test func aModernServerHasNothingToFix() throws {
        let nginx = try RunningNginx(
            protocols: "TLSv1.2 TLSv1.3", ciphers: "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305",
            preferServerCiphers: false,
            extra:
                "add_header Strict-Transport-Security \"max-age=63072000; includeSubDomains\" always; server_tokens off; ssl_ecdh_curve X25519:prime256v1:secp384r1;"
        )
        let expected = try Self.sslscan(nginx.port)
        let found = try Self.vigil(nginx.port)
        #expect(found.pairs == expected, "vigil: \(found.pairs.sorted())\nsslscan: \(expected.sorted())")
        let groups = try Self.sslscanGroups(nginx.port)
        #expect(!groups.isEmpty && Self.groups(found.report) == groups, "vigil: \(Self.groups(found.report).sorted())\nsslscan: \(groups.sorted())")
        // Its certificate names an OCSP responder that cannot be reached here, so nginx staples nothing: a notice.
        // The test PKI's leaf lives a century: outside Mozilla's profile, a notice as well.
        #expect(found.status == 0 && found.codes.isSubset(of: ["no-ocsp-stapling", "profile-certificate-lifespan"]), "\(found.codes)")
        #expect(!found.codes.contains("insecure-renegotiation") && !found.codes.contains("tls-compression"))
        #expect((found.report["rating"] as? [String: Any])?["grade"] as? String == "A+", "HSTS of two years and nothing above a notice")
        nginx.stop()
    }

    /// Two more real configurations: DHE only with a 1024-bit group (LOGJAM's, an error), and the
    /// modern one without HSTS; each found as sslscan finds it, each with its finding and grade.
    @Test(arguments: [
        ("dh1024", "TLSv1.2", "DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:@SECLEVEL=0", true, "weak-dh", "F"),
        ("no-hsts", "TLSv1.2 TLSv1.3", "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305", false, "no-hsts", "A"),
    ])
    func moreRealConfigurations(name: String, protocols: String, ciphers: String, dh1024: Bool, code: String, grade: String) throws {
        let directory = try TestPaths.temporaryDirectory().path
        if dh1024 { try CommandRunner.openssl(["dhparam", "-out", "dh1024.pem", "1024"], in: URL(fileURLWithPath: directory)) }
        let hsts = "add_header Strict-Transport-Security \"max-age=63072000; includeSubDomains\" always;"
        let nginx = try RunningNginx(
            protocols: protocols, ciphers: "\"\(ciphers)\"", dhparam: dh1024 ? directory + "/dh1024.pem" : nil, extra: dh1024 ? hsts : "")
        defer { nginx.stop() }
        let expected = try Self.sslscan(nginx.port)
        let found = try Self.vigil(nginx.port)
        #expect(!expected.isEmpty && found.pairs == expected, "\(name): vigil \(found.pairs.sorted())\nsslscan: \(expected.sorted())")
        // nginx's default groups without ssl_ecdh_curve: OpenSSL's, finite fields in TLS 1.3 too.
        let groups = try Self.sslscanGroups(nginx.port)
        #expect(Self.groups(found.report) == groups, "\(name): vigil \(Self.groups(found.report).sorted())\nsslscan: \(groups.sorted())")
        #expect(
            found.codes.contains(code) && (found.report["rating"] as? [String: Any])?["grade"] as? String == grade,
            "\(name): \(found.codes.sorted()) \(found.report["rating"] ?? "none")")
        if dh1024 {
            let bits = (found.report["versions"] as? [[String: Any]] ?? []).flatMap { $0["suites"] as? [[String: Any]] ?? [] }.compactMap {
                $0["ephemeralBits"] as? Int
            }
            #expect(Set(bits) == [1024], "the group's size read from the handshake: \(bits)")
        }
    }

    /// The cloud itself, on the simulator: what status.php says (product, version), HSTS missing,
    /// the setup checks' headers missing; maintenance mode said as such.
    @Test func theCloudSaysWhatItIsAndMaintenanceIsSaid() async throws {
        for (scenario, expected) in [("valid", "no-hsts"), ("maintenance", "maintenance")] {
            try await withRunningSimulator(scenario) { (running) async throws in
                let result = try await CommandRunner.vigilDetached(["server", "check", running.url(path: ""), "--ca-file", TestPaths.caBundle, "--json"])
                let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardError)")
                let codes = Set((report["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String })
                #expect(codes.contains(expected) && codes.contains("headers-missing"), "\(scenario): \(codes)")
                // No HSTS caps it at A: the simulator's TLS is set up as Mozilla's intermediate profile.
                #expect((report["rating"] as? [String: Any])?["grade"] as? String == "A", "\(report["rating"] ?? "none")")
                #expect((report["cloud"] as? [String: Any])?["product"] as? String == "ownCloud", "\(report["cloud"] ?? "none")")
                #expect(!running.simulator.journal.entries.contains { $0.authorization }, "no credential was ever sent")
            }
        }
    }

    /// Nothing answered, or something that is not TLS: exit 2 with the code, never a verdict.
    @Test func aServerThatCannotBeCheckedIsExitTwo() throws {
        let closed = try CommandRunner.vigil(["server", "check", "https://127.0.0.1:\(closedLoopbackPort())"])
        #expect(closed.status == 2 && closed.errorCode == "ServerCheckError unreachable", "\(closed.standardError)")
        let usage = try CommandRunner.vigil(["server", "check", "https://127.0.0.1:1", "--fail-on", "bogus"])
        #expect(usage.status == 64)
    }
}
