import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

/// A private CA's certificate is judged by RFC 5280; the Web PKI's own rules become findings.
@Suite("Trust profiles")
struct TrustProfileTests {
    /// The example: CN=origin.example.test, SANs IP:127.0.0.1 and DNS:localhost, from a
    /// private CA. curl, OpenSSL and browsers accept it; the Web PKI's CN rule does not.
    func privateLeaf() throws -> [Certificate] {
        let directory = try TestPaths.temporaryDirectory().path
        let key = directory + "/k.pem", csr = directory + "/r.csr", cert = directory + "/c.pem", ext = directory + "/ext.cnf"
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
            .write(toFile: ext, atomically: true, encoding: .utf8)
        for arguments in [
            ["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=origin.example.test", "-keyout", key, "-out", csr],
            [
                "x509", "-req", "-in", csr, "-CA", TestPaths.testcert("intermediate-ca.pem"), "-CAkey", TestPaths.testcert("intermediate-ca.key"),
                "-CAserial", directory + "/serial.srl", "-CAcreateserial", "-days", "30", "-sha256", "-extfile", ext, "-out", cert,
            ],
        ] {
            let result = try CommandRunner.run("/usr/bin/openssl", arguments)
            #expect(result.status == 0, "\(result.standardError)")
        }
        return try Certificate.load(path: cert) + Certificate.load(path: TestPaths.testcert("intermediate-ca.pem"))
    }

    @Test func aPrivateCAsLeafIsTrustedUnderRFC5280() throws {
        let chain = try privateLeaf()
        let byAnchor = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])).evaluate(chain, for: PeerName(host: "127.0.0.1"))
        #expect(byAnchor.verdict.isTrusted, "\(byAnchor.verdict.reasons)")
        #expect(byAnchor.profile.profile == .rfc5280)
        #expect(byAnchor.rulesNotApplied.map(\.code.rawValue) == ["profile-cn-not-in-san"], "shown, never silent")

        var webpki = TrustEvaluator.Configuration.caFiles([TestPaths.caBundle])
        webpki.profile = .forced(.webpki)
        let forced = try TrustEvaluator(configuration: webpki).evaluate(chain, for: PeerName(host: "127.0.0.1"))
        #expect(!forced.verdict.isTrusted && forced.verdict.reasons.map(\.code.rawValue) == ["profile-cn-not-in-san"])
        #expect(forced.rulesNotApplied.isEmpty)
    }

    /// RFC 5280's own rules still decide under rfc5280.
    @Test func rfc5280RulesStillDecide() throws {
        for name in ["ca-as-leaf", "wrong-eku", "unknown-critical", "expired-intermediate"] {
            let chain = try Certificate.load(path: TestPaths.testcert("\(name)-chain.pem"))
            let evaluation = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])).evaluate(chain, for: PeerName(host: "127.0.0.1"))
            #expect(!evaluation.verdict.isTrusted, "\(name)")
        }
    }

    /// A root that is also a public root is the Web PKI, even when passed with --ca-file.
    @Test func aPublicRootPassedAsACAFileIsStillTheWebPKI() throws {
        let leaf = TestPaths.testcert("no-eku-chain.pem")
        let asPrivate = try CommandRunner.vigil(["inspect", "--file", leaf, "--host", "127.0.0.1", "--ca-file", TestPaths.caBundle])
        #expect(asPrivate.status == 0 && asPrivate.standardOutput.contains("profile: rfc5280"), "\(asPrivate.standardOutput)")
        // Make the test root one of "the public roots" for this run.
        let asPublic = try CommandRunner.vigil(
            ["inspect", "--file", leaf, "--host", "127.0.0.1", "--ca-file", TestPaths.caBundle],
            environment: ["VIGIL_PUBLIC_ROOTS": TestPaths.caBundle])
        #expect(asPublic.status == 1 && asPublic.standardOutput.contains("profile: webpki"), "\(asPublic.standardOutput)")
    }

    /// "In the system store" means the same DER: a bundle with CRLF lines and other wrapping still
    /// holds the root; a block as long as the root whose bytes differ does not.
    @Test func theSystemStoreHoldsARootOnlyByItsExactBytes() throws {
        let leaf = TestPaths.testcert("no-eku-chain.pem")
        let pem = try String(contentsOfFile: TestPaths.caBundle, encoding: .utf8)
        let lines = pem.split(separator: "\n").map(String.init)
        let body = lines.filter { !$0.hasPrefix("-----") }.joined()
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func inspect(withBundle text: String) throws -> CommandResult {
            let file = directory.appendingPathComponent(UUID().uuidString + ".pem")
            try text.write(to: file, atomically: true, encoding: .utf8)
            return try CommandRunner.vigil(
                ["inspect", "--file", leaf, "--host", "127.0.0.1", "--ca-file", TestPaths.caBundle],
                environment: ["VIGIL_PUBLIC_ROOTS": file.path])
        }
        // Other wrapping (76 columns), CRLF line ends, another block before it.
        let other = try String(contentsOfFile: TestPaths.testcert("attacker-ca.pem"), encoding: .utf8)
        var wrapped: [String] = []
        var rest = Substring(body)
        while !rest.isEmpty {
            wrapped.append(String(rest.prefix(76)))
            rest = rest.dropFirst(76)
        }
        let rewrapped = (["-----BEGIN CERTIFICATE-----"] + wrapped + ["-----END CERTIFICATE-----", ""]).joined(separator: "\r\n")
        let same = try inspect(withBundle: other + rewrapped)
        #expect(same.standardOutput.contains("profile: webpki"), "\(same.standardOutput)")
        // The same length, one character changed in the middle: not the root.
        var characters = Array(body)
        let middle = characters.count / 2
        characters[middle] = characters[middle] == "A" ? "B" : "A"
        let changed = "-----BEGIN CERTIFICATE-----\n" + String(characters) + "\n-----END CERTIFICATE-----\n"
        let different = try inspect(withBundle: other + changed)
        #expect(different.status == 0 && different.standardOutput.contains("profile: rfc5280"), "\(different.standardOutput)")
    }
}
