import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

/// Path building and validity at the edges, on a PKI made here: a server that sends two
/// certificates for its intermediate, one from a root the client does not trust first, is
/// trusted through the other (OpenSSL alone takes the first and fails); a certificate is valid up
/// to and including its notAfter second (RFC 5280 4.1.2.5), not one second more.
@Suite("Path building")
struct PathBuildingTests {
    let directory: URL
    init() throws { directory = try TestPaths.temporaryDirectory() }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func openssl(_ arguments: [String]) throws { try CommandRunner.openssl(arguments, in: directory) }

    /// Roots R1 (trusted) and R2 (not), one intermediate key certified by each under one name,
    /// and a leaf for 127.0.0.1 issued with that key.
    func crossSignedPKI() throws {
        let config = """
            [ca]
            basicConstraints = critical,CA:TRUE
            keyUsage = critical,keyCertSign,cRLSign
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid:always
            [leaf]
            basicConstraints = critical,CA:FALSE
            keyUsage = critical,digitalSignature
            extendedKeyUsage = serverAuth
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid:always
            subjectAltName = IP:127.0.0.1
            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: path("x.cnf")))
        for name in ["r1", "r2", "ica", "leaf"] {
            try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path("\(name).key")])
        }
        for (name, subject) in [("r1", "/CN=Path Root One"), ("r2", "/CN=Path Root Two")] {
            try openssl([
                "req", "-x509", "-new", "-key", path("\(name).key"), "-subj", subject, "-days", "30", "-config", path("x.cnf"), "-extensions", "ca",
                "-out", path("\(name).pem"),
            ])
        }
        try openssl(["req", "-new", "-key", path("ica.key"), "-subj", "/CN=Path Intermediate", "-out", path("ica.csr")])
        for (root, serial) in [("r2", "2"), ("r1", "3")] {
            try openssl([
                "x509", "-req", "-in", path("ica.csr"), "-CA", path("\(root).pem"), "-CAkey", path("\(root).key"), "-set_serial", serial, "-days", "30",
                "-extfile", path("x.cnf"), "-extensions", "ca", "-out", path("ica-by-\(root).pem"),
            ])
        }
        try openssl(["req", "-new", "-key", path("leaf.key"), "-subj", "/CN=127.0.0.1", "-out", path("leaf.csr")])
        try openssl([
            "x509", "-req", "-in", path("leaf.csr"), "-CA", path("ica-by-r1.pem"), "-CAkey", path("ica.key"), "-set_serial", "4", "-days", "30",
            "-extfile", path("x.cnf"), "-extensions", "leaf", "-out", path("leaf.pem"),
        ])
    }

    @Test func anAlternativePathIsFoundWhenTheChainAsSentFails() throws {
        try crossSignedPKI()
        let leaf = try Certificate.load(path: path("leaf.pem"))
        let byUntrusted = try Certificate.load(path: path("ica-by-r2.pem"))
        let byTrusted = try Certificate.load(path: path("ica-by-r1.pem"))
        let evaluator = try TrustEvaluator(configuration: .caFiles([path("r1.pem")]))

        // OpenSSL alone takes the first intermediate it is sent and fails.
        let reference = try CommandRunner.run(
            "/usr/bin/openssl",
            ["verify", "-CAfile", path("r1.pem"), "-untrusted", path("ica-by-r2.pem"), "-untrusted", path("ica-by-r1.pem"), path("leaf.pem")])
        #expect(reference.status != 0, "the case must be one OpenSSL's own building misses")

        let evaluation = evaluator.evaluate(leaf + byUntrusted + byTrusted, for: PeerName(host: "127.0.0.1"))
        #expect(evaluation.verdict.isTrusted, "\(evaluation.verdict.reasons)")
        #expect(evaluation.chain.builtFromAlternative && evaluation.chain.pathsTried > 1)
        #expect(evaluation.verifiedChain.map(\.subject) == ["CN=127.0.0.1", "CN=Path Intermediate", "CN=Path Root One"])
        #expect(evaluation.verifiedChain[1] == byTrusted[0])
        #expect(evaluation.chain.unusedSent == [1], "the intermediate from the untrusted root is reported unused")

        // Sent in the working order, the first path decides.
        let direct = evaluator.evaluate(leaf + byTrusted + byUntrusted, for: PeerName(host: "127.0.0.1"))
        #expect(direct.verdict.isTrusted && !direct.chain.builtFromAlternative && direct.chain.pathsTried == 1)

        // With only the untrusted root's intermediate there is no path: untrusted, every candidate tried.
        let none = evaluator.evaluate(leaf + byUntrusted, for: PeerName(host: "127.0.0.1"))
        #expect(!none.verdict.isTrusted && none.chain.pathsTried == 1, "a pool whose only path is the chain as sent has no alternative")
        #expect(none.verdict.reasons.contains { $0.code == .unknownIssuer })
    }

    /// Alternatives are never a way around a rule: a path that breaks one is refused whichever
    /// order finds it (here the name: the alternative path is valid, but not for this host).
    @Test func anAlternativePathIsJudgedByEveryRule() throws {
        try crossSignedPKI()
        let chain = try Certificate.load(path: path("leaf.pem")) + Certificate.load(path: path("ica-by-r2.pem")) + Certificate.load(path: path("ica-by-r1.pem"))
        let evaluation = try TrustEvaluator(configuration: .caFiles([path("r1.pem")])).evaluate(chain, for: PeerName(host: "127.0.0.2"))
        #expect(!evaluation.verdict.isTrusted)
        #expect(evaluation.verdict.reasons.contains { $0.code == .ipMismatch }, "\(evaluation.verdict.reasons)")
    }

    /// RFC 5280 4.1.2.5: "the validity period ... from notBefore through notAfter, inclusive".
    /// OpenSSL alone counts a certificate as expired in its notAfter second.
    @Test func notAfterIsInclusive() throws {
        let chain = try Certificate.load(path: TestPaths.testcert("cloud-example-chain.pem"))
        let notAfter = try #require(chain.first?.notAfter)
        var configuration = TrustEvaluator.Configuration.caFiles([TestPaths.caBundle])
        configuration.time = notAfter
        let atNotAfter = try TrustEvaluator(configuration: configuration).evaluate(chain, for: nil)
        #expect(atNotAfter.verdict.isTrusted, "\(atNotAfter.verdict.reasons)")
        configuration.time = notAfter.addingTimeInterval(0.9)
        #expect(try TrustEvaluator(configuration: configuration).evaluate(chain, for: nil).verdict.isTrusted, "still the notAfter second")
        configuration.time = notAfter.addingTimeInterval(1)
        let after = try TrustEvaluator(configuration: configuration).evaluate(chain, for: nil)
        #expect(after.verdict.reasons.contains { $0.code == .expired }, "\(after.verdict.reasons)")
    }
}
