import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

/// What no approval can make acceptable, and what stays approvable after review.
@Suite("Approval rule")
struct ApprovalRuleTests {
    func refusals(_ name: String, host: String = "127.0.0.1") throws -> [String] {
        let chain = try Certificate.load(path: TestPaths.testcert("\(name)-chain.pem"))
        let evaluation = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])).evaluate(chain, for: PeerName(host: host))
        return ApprovalRule.refusals(evaluation, sent: chain).map(\.code.rawValue)
    }

    @Test(arguments: [
        ("rsa-1024", ["weak-key"]), ("sha1-intermediate", ["weak-signature"]), ("ca-as-leaf", ["ca-as-leaf"]),
        ("wrong-host", ["another-name"]), ("cn-only", ["another-name"]), ("signed-by-leaf", ["signed-by-non-ca"]),
    ])
    func neverApprovable(name: String, codes: [String]) throws {
        #expect(try refusals(name) == codes)
    }

    @Test(arguments: [
        "expired", "not-yet-valid", "self-signed", "untrusted-root", "incomplete-chain", "wrong-eku", "no-eku",
        "unknown-critical", "expired-intermediate", "mitm-forged", "valid-127.0.0.1", "ed25519", "rsa-4096", "cross-signed",
        "no-certsign-intermediate",
    ])
    func approvableAfterReview(name: String) throws {
        #expect(try refusals(name).isEmpty, "\(name)")
    }

    /// A root's own SHA-1 self-signature is not what protects a chain; a SHA-1 leaf is.
    @Test func aSHA1SelfSignedLeafIsRefused() throws {
        let directory = try TestPaths.temporaryDirectory()
        let key = directory.appendingPathComponent("k.pem").path, cert = directory.appendingPathComponent("c.pem").path
        let made = try CommandRunner.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-sha1", "-days", "30", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert,
            ])
        #expect(made.status == 0, "\(made.standardError)")
        let chain = try Certificate.load(path: cert)
        let evaluation = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])).evaluate(chain, for: PeerName(host: "127.0.0.1"))
        // openssl req -x509 also marks it cA=TRUE: both are reasons.
        #expect(ApprovalRule.refusals(evaluation, sent: chain).map(\.code.rawValue).contains("weak-signature"))
    }

    @Test func aRevokedCertificateCanNeverBeApproved() throws {
        let crl = try TestCRL.revoking("valid-127.0.0.1")
        var configuration = TrustEvaluator.Configuration.caFiles([TestPaths.caBundle])
        configuration.crlsPEM = [try String(contentsOfFile: crl.pem, encoding: .utf8)]
        let chain = try Certificate.load(path: TestPaths.testcert("valid-127.0.0.1-chain.pem"))
        let evaluation = try TrustEvaluator(configuration: configuration).evaluate(chain, for: PeerName(host: "127.0.0.1"))
        #expect(ApprovalRule.refusals(evaluation, sent: chain).map(\.code.rawValue) == ["revoked"])
    }

    /// The leaf that signed the server's certificate is found in any order it is sent in.
    @Test func aLeafAsIssuerIsFoundInAnyOrder() throws {
        let chain = try Certificate.load(path: TestPaths.testcert("signed-by-leaf-chain.pem"))
        for sent in [chain, [chain[0], chain[2], chain[1]], [chain[0]] + chain.dropFirst().reversed()] {
            let evaluation = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])).evaluate(sent, for: PeerName(host: "127.0.0.1"))
            #expect(ApprovalRule.refusals(evaluation, sent: sent).map(\.code.rawValue).contains("signed-by-non-ca"))
        }
    }
}
