import Foundation
import Testing
import VigilCertificates
import VigilRules
import VigilTestSupport

/// The ownCloud SDK's certificate rule language: parsing with columns, and the seeds' rules
/// against renewed, re-keyed and forged chains.
@Suite("Certificate rules")
struct CertificateRuleTests {
    static let seedsRenewal =
        "(bookmarkCertificate.publicKeyData == serverCertificate.publicKeyData) OR ((check.parentCertificatesHaveIdenticalPublicKeys == true) AND (serverCertificate.passedValidationOrIsUserAccepted == true))"

    func context(_ bookmark: String, _ server: String, passed: Bool) throws -> CertificateRuleContext {
        CertificateRuleContext(
            bookmark: try Certificate.load(path: TestPaths.testcert("\(bookmark)-chain.pem")),
            server: try Certificate.load(path: TestPaths.testcert("\(server)-chain.pem")), serverPassedValidationOrIsUserAccepted: passed)
    }

    @Test(arguments: [
        ("renewed-a1", "renewed-a2", true, true),  // same key: accepted
        ("renewed-a1", "rekeyed-b1", true, true),  // new key, same issuer key, validated: the seeds' rule accepts it
        ("renewed-a1", "rekeyed-b1", false, false),  // ... but not when it did not validate
        ("renewed-a1", "mitm-forged", false, false),  // another issuer key and not validated
    ])
    func theSeedsRenewalRule(bookmark: String, server: String, passed: Bool, holds: Bool) throws {
        let rule = try CertificateRule(parsing: Self.seedsRenewal)
        #expect(rule.evaluate(try context(bookmark, server, passed: passed)) == holds)
    }

    @Test func membersLiteralsAndOperators() throws {
        let c = try context("renewed-a1", "renewed-a2", passed: true)
        let leaf = try #require(try Certificate.load(path: TestPaths.testcert("renewed-a2.pem")).first)
        let spaced = leaf.sha256Fingerprint.replacingOccurrences(of: ":", with: " ")
        let holds: [String] = [
            "serverCertificate.commonName == \"127.0.0.1\"",
            "serverCertificate.parentCertificate.commonName == \"Vigil Test Intermediate CA\"",
            "serverCertificate.sha256Fingerprint.asFingerPrintString == \"\(spaced)\"",
            "NOT (bookmarkCertificate == serverCertificate)",
            "bookmarkCertificate != serverCertificate AND true",
            "false OR bookmarkCertificate.passedValidationOrIsUserAccepted == true",
        ]
        for text in holds { #expect(try CertificateRule(parsing: text).evaluate(c), "\(text)") }
        let fails: [String] = [
            "never", "never OR false",
            "serverCertificate.parentCertificate.parentCertificate.commonName == \"x\"",  // no such parent: false, not an error
            "serverCertificate.rootCertificate.commonName == \"Vigil Test Root CA\"",  // the chain file does not hold the root
        ]
        for text in fails { #expect(try !CertificateRule(parsing: text).evaluate(c), "\(text)") }
    }

    @Test(arguments: [
        ("", 1, "empty"), ("bookmarkCertificate ==", 23, "unexpected the end"), ("(true", 6, "expected ) to close the ( at column 1"),
        ("serverCertificate.publicKey == true", 19, "unknown member publicKey"), ("client.x == true", 1, "unknown name client"),
        ("true = false", 6, "expected =="), ("\"open", 1, "not closed"), ("check.commonName", 1, "check has one member"),
        ("true false", 6, "expected AND, OR or the end"),
    ])
    func syntaxErrorsNameTheColumn(text: String, column: Int, words: String) {
        do {
            _ = try CertificateRule(parsing: text)
            Issue.record("\(text) parsed")
        } catch let error as CertificateRule.SyntaxError {
            #expect(error.column == column, "\(text): \(error)")
            #expect(error.reason.contains(words), "\(text): \(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    /// `rootCertificate` is the trusted root of the verified path, as the SDK means it, though
    /// servers do not send their root; an untrusted chain is read as sent.
    @Test func theRootIsTheTrustedRootOfTheVerifiedPath() throws {
        let rule = try CertificateRule(parsing: #"serverCertificate.rootCertificate.commonName == "Vigil Test Root CA""#)
        let evaluator = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle]))
        func holds(_ name: String) throws -> Bool {
            let sent = try Certificate.load(path: TestPaths.testcert("\(name)-chain.pem"))
            let evaluation = evaluator.evaluate(sent, for: PeerName(host: "127.0.0.1"))
            let path = CertificateRuleContext.path(evaluation, sent: sent)
            return rule.evaluate(CertificateRuleContext(bookmark: path, server: path, serverPassedValidationOrIsUserAccepted: evaluation.verdict.isTrusted))
        }
        #expect(try holds("valid-127.0.0.1"), "the root was not sent, yet it is the path's root")
        #expect(try !holds("mitm-forged"), "a forged chain's top is the attacker's CA, whatever its name")
    }
}
