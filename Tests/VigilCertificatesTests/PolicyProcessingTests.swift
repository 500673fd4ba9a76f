import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

/// RFC 5280 section 6.1 policy processing, on a private PKI made here with openssl: a CA that
/// requires an explicit policy, over a path that asserts none, is refused, as
/// `openssl verify -x509_strict -policy_check` refuses it; the same path with a policy is trusted.
/// The initial policy set is RFC 5280's default, any-policy (OpenSSL's own default is empty, which
/// would refuse every path under requireExplicitPolicy).
@Suite("Certificate policy processing")
struct PolicyProcessingTests {
    let directory: URL
    init() throws { directory = try TestPaths.temporaryDirectory() }

    /// Runs openssl; throws with its output when it fails.
    func openssl(_ arguments: [String]) throws { try CommandRunner.openssl(arguments, in: directory) }

    /// A root, an intermediate with `intermediate` extensions, and a leaf for 127.0.0.1 with `leaf`
    /// extensions (lines of an openssl extension section). Returns the anchor and the sent chain.
    func pki(intermediate: [String], leaf: [String]) throws -> (root: String, chain: String) {
        let path = { (name: String) in self.directory.appendingPathComponent(name).path }
        let config = """
            [root]
            basicConstraints = critical,CA:TRUE
            keyUsage = critical,keyCertSign,cRLSign
            subjectKeyIdentifier = hash
            [intermediate]
            basicConstraints = critical,CA:TRUE
            keyUsage = critical,keyCertSign,cRLSign
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid:always
            \(intermediate.joined(separator: "\n"))
            [leaf]
            basicConstraints = critical,CA:FALSE
            keyUsage = critical,digitalSignature
            extendedKeyUsage = serverAuth
            subjectKeyIdentifier = hash
            authorityKeyIdentifier = keyid:always
            subjectAltName = IP:127.0.0.1
            \(leaf.joined(separator: "\n"))
            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: path("x.cnf")))
        for name in ["root", "ica", "leaf"] {
            try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path("\(name).key")])
        }
        try openssl([
            "req", "-x509", "-new", "-key", path("root.key"), "-subj", "/CN=Policy Root", "-days", "30", "-config", path("x.cnf"), "-extensions", "root",
            "-out", path("root.pem"),
        ])
        try openssl(["req", "-new", "-key", path("ica.key"), "-subj", "/CN=Policy Intermediate", "-out", path("ica.csr")])
        try openssl([
            "x509", "-req", "-in", path("ica.csr"), "-CA", path("root.pem"), "-CAkey", path("root.key"), "-set_serial", "2", "-days", "30",
            "-extfile", path("x.cnf"), "-extensions", "intermediate", "-out", path("ica.pem"),
        ])
        try openssl(["req", "-new", "-key", path("leaf.key"), "-subj", "/CN=127.0.0.1", "-out", path("leaf.csr")])
        try openssl([
            "x509", "-req", "-in", path("leaf.csr"), "-CA", path("ica.pem"), "-CAkey", path("ica.key"), "-set_serial", "3", "-days", "30",
            "-extfile", path("x.cnf"), "-extensions", "leaf", "-out", path("leaf.pem"),
        ])
        let chain = try String(contentsOfFile: path("leaf.pem"), encoding: .utf8) + String(contentsOfFile: path("ica.pem"), encoding: .utf8)
        try Data(chain.utf8).write(to: URL(fileURLWithPath: path("chain.pem")))
        return (path("root.pem"), path("chain.pem"))
    }

    func verdicts(_ pki: (root: String, chain: String)) throws -> (vigil: TrustVerdict, openssl: Bool) {
        let chain = try Certificate.load(path: pki.chain)
        let evaluator = try TrustEvaluator(configuration: .caFiles([pki.root]))
        let vigil = evaluator.evaluate(chain, for: PeerName(host: "127.0.0.1")).verdict
        let reference = try CommandRunner.run(
            "/usr/bin/openssl",
            // RFC 5280's default initial policy set is any-policy; OpenSSL's is empty unless given.
            [
                "verify", "-x509_strict", "-policy_check", "-policy", "2.5.29.32.0", "-CAfile", pki.root, "-untrusted", pki.chain, "-purpose", "sslserver",
                pki.chain,
            ])
        return (vigil, reference.status == 0)
    }

    @Test func aRequiredExplicitPolicyThatNoCertificateAssertsIsRefused() throws {
        let (vigil, openssl) = try verdicts(try pki(intermediate: ["policyConstraints = critical,requireExplicitPolicy:0"], leaf: []))
        #expect(!openssl, "the reference refuses it")
        #expect(!vigil.isTrusted && vigil.reasons.map(\.code.rawValue).contains("no-explicit-policy"), "\(vigil)")
    }

    @Test func anInitialPolicySetThePathDoesNotAssertIsRefusedWhenExplicitPolicyIsRequired() throws {
        let policy = "certificatePolicies = 1.3.6.1.4.1.55555.7"
        let made = try pki(intermediate: [policy], leaf: [policy])
        var configuration = TrustEvaluator.Configuration.caFiles([made.root])
        configuration.initialPolicies = ["1.3.6.1.4.1.55555.8"]
        configuration.requireExplicitPolicy = true
        let verdict = try TrustEvaluator(configuration: configuration).evaluate(try Certificate.load(path: made.chain), for: PeerName(host: "127.0.0.1"))
            .verdict
        #expect(!verdict.isTrusted && verdict.reasons.map(\.code.rawValue).contains("no-explicit-policy"), "\(verdict)")
        configuration.initialPolicies = ["1.3.6.1.4.1.55555.7"]
        #expect(
            try TrustEvaluator(configuration: configuration).evaluate(try Certificate.load(path: made.chain), for: PeerName(host: "127.0.0.1")).verdict
                .isTrusted)
    }

    /// A hostile or careless PKI: the leaf asserts the policy, its CA never did (a CA cannot lend
    /// a policy it does not hold), under a CA that requires an explicit policy.
    @Test func aPolicyOnlyTheLeafAssertsIsNoPolicyOfThePath() throws {
        let policy = "certificatePolicies = 1.3.6.1.4.1.55555.7"
        let (vigil, openssl) = try verdicts(try pki(intermediate: ["policyConstraints = critical,requireExplicitPolicy:0"], leaf: [policy]))
        #expect(!openssl, "the reference refuses it")
        #expect(!vigil.isTrusted && vigil.reasons.map(\.code.rawValue).contains("no-explicit-policy"), "\(vigil)")
    }

    @Test func theSamePathWithAPolicyAssertedThroughoutIsTrusted() throws {
        let policy = "certificatePolicies = 1.3.6.1.4.1.55555.7"
        let (vigil, openssl) = try verdicts(try pki(intermediate: ["policyConstraints = critical,requireExplicitPolicy:0", policy], leaf: [policy]))
        #expect(openssl, "the reference accepts it")
        #expect(vigil.isTrusted, "\(vigil)")
    }
}
