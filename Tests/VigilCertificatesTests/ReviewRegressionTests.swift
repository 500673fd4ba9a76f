import Foundation
import Testing
import VigilCertificates
import VigilRules
import VigilTestSupport

/// Regressions for what a security review of the trust changes found.
@Suite("Trust review regressions")
struct ReviewRegressionTests {
    @Test func aSHA1PSSSignatureIsWeak() throws {
        let directory = try TestPaths.temporaryDirectory().path
        let made = try CommandRunner.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-sigopt", "rsa_padding_mode:pss", "-sha1",
                "-keyout", directory + "/k.pem", "-out", directory + "/c.pem",
            ])
        #expect(made.status == 0, "\(made.standardError)")
        let chain = try Certificate.load(path: directory + "/c.pem")
        #expect(chain.first?.signatureDigest.name?.lowercased() == "sha1")
        let evaluation = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])).evaluate(chain, for: PeerName(host: "127.0.0.1"))
        #expect(ApprovalRule.refusals(evaluation, sent: chain).map(\.code.rawValue).contains("weak-signature"))
    }

    @Test func anEd25519KeyIsNotWeak() throws {
        let chain = try Certificate.load(path: TestPaths.testcert("ed25519-chain.pem"))
        let evaluation = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])).evaluate(chain, for: PeerName(host: "127.0.0.1"))
        #expect(ApprovalRule.refusals(evaluation, sent: chain).isEmpty)
    }

    /// A forged leaf followed by the genuine intermediate: the intermediate did not sign it, so it
    /// is not its parent, and the seeds' "same parent key" check does not hold.
    @Test func aParentMustHaveSignedTheCertificate() throws {
        let forged = try Certificate.load(path: TestPaths.testcert("mitm-forged.pem"))
        let genuine = try Certificate.load(path: TestPaths.testcert("renewed-a1-chain.pem"))
        let intermediate = try Certificate.load(path: TestPaths.testcert("intermediate-ca.pem"))
        let context = CertificateRuleContext(bookmark: genuine, server: forged + intermediate, serverPassedValidationOrIsUserAccepted: true)
        #expect(try !CertificateRule(parsing: "check.parentCertificatesHaveIdenticalPublicKeys").evaluate(context))
        #expect(try !CertificateRule(parsing: "serverCertificate.parentCertificate.commonName == \"Vigil Test Intermediate CA\"").evaluate(context))
        let honest = CertificateRuleContext(
            bookmark: genuine, server: try Certificate.load(path: TestPaths.testcert("renewed-a2-chain.pem")), serverPassedValidationOrIsUserAccepted: true)
        #expect(try CertificateRule(parsing: "check.parentCertificatesHaveIdenticalPublicKeys").evaluate(honest))
    }

    @Test func comparisonsWithNothingAreFalse() throws {
        let selfSigned = try Certificate.load(path: TestPaths.testcert("self-signed-chain.pem"))
        let context = CertificateRuleContext(bookmark: selfSigned, server: selfSigned, serverPassedValidationOrIsUserAccepted: true)
        for text in [
            "serverCertificate.parentCertificate.publicKeyData != bookmarkCertificate.parentCertificate.publicKeyData",
            "serverCertificate.parentCertificate.publicKeyData == bookmarkCertificate.parentCertificate.publicKeyData",
        ] {
            #expect(try !CertificateRule(parsing: text).evaluate(context), "\(text)")
        }
    }

    @Test(arguments: [
        String(repeating: "(", count: 6000) + "true" + String(repeating: ")", count: 6000),
        String(repeating: "NOT ", count: 30000) + "true",
        Array(repeating: "true", count: 12000).joined(separator: " AND "),
    ])
    func hostileRulesAreRefusedNotFatal(text: String) {
        #expect(throws: CertificateRule.SyntaxError.self) { _ = try CertificateRule(parsing: text) }
    }
}
