import Foundation
import Testing
import VigilTestSupport

@testable import VigilCertificates

@Suite("Strict profile")
struct StrictProfileTests {
    /// A rule missing from `ProfileRule.all` would have no scope to look up: every rule declared is
    /// listed once, the Web PKI's own rules are the nine the Baseline Requirements impose, and the
    /// one RFC 5280 rule they waive (non-critical name constraints) decides only for private chains.
    @Test func everyRuleIsListedWithItsScope() throws {
        let source = try String(contentsOf: TestPaths.root.appendingPathComponent("Sources/VigilCertificates/ProfileRule.swift"), encoding: .utf8)
        let declared = source.split(separator: "\n").filter { $0.contains("static let") && $0.contains("= ProfileRule(\"") }.count
        #expect(ProfileRule.all.count == declared && Set(ProfileRule.all).count == declared)
        #expect(
            Set(ProfileRule.all.filter { $0.scope == .webpki }.map(\.name)) == [
                "forbidden-key", "no-eku", "any-eku", "critical-eku", "cn-not-in-san", "public-suffix-wildcard", "root-with-eku", "critical-san",
                "ca-without-key-usage",
            ])
        #expect(ProfileRule.all.filter { $0.scope == .waivedByWebPKI }.map(\.name) == ["noncritical-nc"])
        #expect(ProfileRule.nonCriticalNameConstraints.applies(in: .rfc5280) && !ProfileRule.nonCriticalNameConstraints.applies(in: .webpki))
        #expect(ProfileRule.rule(for: ProfileRule.noExtendedKeyUsage.code)?.applies(in: .rfc5280) == false)
        #expect(ProfileRule.rule(for: ProfileRule.serialZero.code)?.applies(in: .rfc5280) == true)
    }

    @Test(arguments: ["example.com", "*.example.com", "a-b.example", "xn--n3h.com", "localhost"])
    func preferredNameSyntaxAccepts(name: String) {
        #expect(StrictProfile.isPreferredNameSyntax(name))
    }

    @Test(arguments: ["", ".example.com", "foo_bar.example.com", "-a.example", "a..b", "*.com", "f*.example.com", "ex ample.com"])
    func preferredNameSyntaxRejects(name: String) {
        #expect(!StrictProfile.isPreferredNameSyntax(name) || name == "*.com")
        if name == "*.com" { #expect(!StrictProfile.isPreferredNameSyntax(name, allowWildcard: false)) }
    }

    @Test(arguments: ["foo@example.com", "*@example.com", "user*@example.com", "a.b+c@xn--n3h.example"])
    func mailboxesAccepted(address: String) {
        #expect(StrictProfile.isMailbox(address))
    }

    /// A second "@" or an empty part is no mailbox, whatever OpenSSL's name constraints make of it.
    @Test(arguments: ["invalid@address@example.com", "@example.com", "foo@", "foo", "foo@bar_baz.example", "fo o@example.com"])
    func mailboxesRefused(address: String) {
        #expect(!StrictProfile.isMailbox(address))
    }

    /// An EC key with explicit curve parameters names no curve: the Web PKI's key rule refuses it
    /// as it refuses a curve outside P-256, P-384 and P-521; the same key on its named curve passes.
    @Test func explicitCurveParametersAreAForbiddenKey() throws {
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func rules(encoding: String) throws -> [ProfileRule] {
            let key = directory.appendingPathComponent("\(encoding).key").path, pem = directory.appendingPathComponent("\(encoding).pem").path
            _ = try CommandRunner.run("/usr/bin/openssl", ["ecparam", "-name", "prime256v1", "-param_enc", encoding, "-genkey", "-noout", "-out", key])
            _ = try CommandRunner.run("/usr/bin/openssl", ["req", "-x509", "-new", "-key", key, "-subj", "/CN=curve.example", "-days", "2", "-out", pem])
            let certificate = try #require(try Certificate.load(path: pem).first)
            var failed: [ProfileRule] = []
            StrictProfile.checkKey(certificate, who: "the certificate") { rule, _ in failed.append(rule) }
            return failed
        }
        #expect(try rules(encoding: "explicit") == [.forbiddenKey])
        #expect(try rules(encoding: "named_curve").isEmpty)
    }

    @Test func publicSuffixes() {
        let list = PublicSuffixList.shared
        #expect(list.isPublicSuffix("com"))
        #expect(!list.isPublicSuffix("example.com"))
        if list.loaded {
            #expect(list.isPublicSuffix("co.uk"))
            #expect(list.isPublicSuffix("s3.amazonaws.com"))
        }
    }
}
