import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

/// One test PKI per rule of RFC 5280 section 6.3 that ``CRLEvaluation`` covers (scripts/crl-pki.py
/// makes them with new keys on every run): every certificate of the path, key rollover, indirect
/// CRLs, issuing distribution point scopes, reasons partitions, partitioned CRLs, delta CRLs,
/// certificateHold, an out-of-date CRL and a CRL signed by another key. Each is judged offline
/// (the CRLs given, as `--crl-file`) and online (each CRL fetched from the distribution point its
/// certificate names, through ``RevocationReport/check(_:sent:staple:given:policy:mayFetch:fetch:)``).
@Suite("CRLs for the whole path")
struct CRLPathTests {
    /// The PKIs, made once per test process.
    struct Fixtures: Sendable {
        let directory: URL
        let at: Date
        let cases: [String: Case]

        struct Case: Decodable, Sendable {
            var rule: String
            var offline: String
            var statuses: [String]
            var online: String
            var onlineStatuses: [String]
        }

        static let shared: Result<Fixtures, any Error> = Result {
            let directory = try TestPaths.temporaryDirectory()
            let made = try CommandRunner.run("/usr/bin/python3", [TestPaths.root.appendingPathComponent("scripts/crl-pki.py").path, directory.path])
            guard made.status == 0 else { throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: made.standardError]) }
            struct File: Decodable {
                var at: String
                var cases: [String: Case]
            }
            let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: directory.appendingPathComponent("cases.json")))
            return Fixtures(directory: directory, at: try Date(file.at, strategy: .iso8601), cases: file.cases)
        }

        func certificates(_ name: String, _ file: String) throws -> [Certificate] {
            try Certificate.load(path: directory.appendingPathComponent(name).appendingPathComponent(file).path)
        }

        /// The evaluator of case `name`: its root the only anchor, at the cases' time, with the
        /// case's CRLs given offline when `givingCRLs`.
        func evaluator(_ name: String, givingCRLs: Bool) throws -> TrustEvaluator {
            var configuration = TrustEvaluator.Configuration.caFiles([directory.appendingPathComponent("\(name)/root.pem").path])
            configuration.time = at
            if givingCRLs {
                configuration.crlsPEM = [try String(contentsOf: directory.appendingPathComponent("\(name)/crls.pem"), encoding: .utf8)]
            }
            return try TrustEvaluator(configuration: configuration)
        }
    }

    static let names = [
        "whole-path-good", "revoked-leaf", "revoked-intermediate", "intermediate-uncovered", "certificate-hold", "expired-crl", "crl-wrong-key",
        "key-rollover", "key-rollover-revoked", "indirect-crl-good", "indirect-crl-revoked", "indirect-crl-issuer-missing", "indirect-crl-not-indirect",
        "idp-only-ca", "idp-only-user", "idp-only-attribute", "some-reasons-complete", "some-reasons-partial", "partition-shard-1",
        "partition-shard-2", "delta-revokes", "delta-removes-hold", "delta-wrong-base", "no-next-update-fresh", "no-next-update-old",
    ]

    /// What a check says, in the fixtures' words.
    static func word(_ checks: [RevocationCheck], depth: Int) -> String {
        // The last usable answer for that depth, else none.
        guard let check = checks.last(where: { $0.depth == depth && $0.status != nil }), let status = check.status else { return "none" }
        return status == .revoked ? "revoked" : status == .good ? "good" : "none"
    }

    static func verdictWord(_ evaluation: TrustEvaluation) -> String {
        if evaluation.verdict.isTrusted { return "trusted" }
        return evaluation.verdict.reasons.contains { $0.code == .revoked } ? "revoked" : "none"
    }

    @Test func everyRuleHasACase() throws {
        let fixtures = try Fixtures.shared.get()
        #expect(Set(fixtures.cases.keys) == Set(Self.names))
    }

    @Test(arguments: names)
    func offline(_ name: String) throws {
        let fixtures = try Fixtures.shared.get()
        let expected = try #require(fixtures.cases[name])
        let chain = try fixtures.certificates(name, "chain.pem")
        let evaluation = try fixtures.evaluator(name, givingCRLs: true).evaluate(chain, for: PeerName(host: "server.test"))
        let checks = evaluation.revocation?.checks ?? []
        #expect(checks.allSatisfy { $0.source == .crlFile })
        #expect(
            Self.verdictWord(evaluation) == expected.offline,
            "\(name) (\(expected.rule)): \(evaluation.verdict.reasons.map(\.message))")
        #expect((0..<expected.statuses.count).map { Self.word(checks, depth: $0) } == expected.statuses, "\(name): \(checks)")
        if expected.offline == "none" { #expect(evaluation.verdict.reasons.contains { $0.code == .noCRL }) }
    }

    @Test(arguments: names)
    func online(_ name: String) throws {
        let fixtures = try Fixtures.shared.get()
        let expected = try #require(fixtures.cases[name])
        let chain = try fixtures.certificates(name, "chain.pem")
        let evaluation = try fixtures.evaluator(name, givingCRLs: false).evaluate(chain, for: PeerName(host: "server.test"))
        #expect(evaluation.verdict.isTrusted, "\(evaluation.verdict.reasons.map(\.message))")
        var asked: [String] = []
        // The distribution point http://crl.test/NAME.crl serves the case's crl/NAME.crl.
        let report = RevocationReport.check(evaluation, sent: chain, staple: nil, policy: .hardFail) { request in
            asked.append(request.url)
            guard case .crl(let url) = request, url.hasPrefix("http://crl.test/") else { throw CocoaError(.fileNoSuchFile) }
            return try Array(Data(contentsOf: fixtures.directory.appendingPathComponent("\(name)/crl/\(url.dropFirst("http://crl.test/".count))")))
        }
        let judged = evaluation.requiring(revocation: report)
        #expect(
            Self.verdictWord(judged) == expected.online, "\(name) (\(expected.rule)) online: \(judged.verdict.reasons.map(\.message)); asked \(asked)")
        #expect((0..<expected.onlineStatuses.count).map { Self.word(report.checks, depth: $0) } == expected.onlineStatuses, "\(name): \(report.checks)")
        #expect(asked.allSatisfy { $0.hasPrefix("http://crl.test/") })
    }

    /// The checks are a function of their inputs: the same case evaluated again, by a new
    /// evaluator, gives the same checks.
    @Test func theSameInputsGiveTheSameChecks() throws {
        let fixtures = try Fixtures.shared.get()
        for name in Self.names {
            func run() throws -> [RevocationCheck] {
                try fixtures.evaluator(name, givingCRLs: true).evaluate(try fixtures.certificates(name, "chain.pem"), for: nil).revocation?.checks ?? []
            }
            #expect(try run() == run(), "\(name)")
        }
    }

    /// A chain that reaches a trusted anchor with every signature verified is vouched for by a CA,
    /// even when it fails for another reason (here, another name): its CRLs are asked. A
    /// self-signed leaf is not: nothing is asked, its addresses are listed.
    @Test func revocationIsAskedOnlyWhereACAVouches() throws {
        let fixtures = try Fixtures.shared.get()
        let chain = try fixtures.certificates("whole-path-good", "chain.pem")
        let misnamed = try fixtures.evaluator("whole-path-good", givingCRLs: false).evaluate(chain, for: PeerName(host: "other.test"))
        #expect(!misnamed.verdict.isTrusted && misnamed.reachesTrustedAnchor)
        var asked: [String] = []
        _ = RevocationReport.check(misnamed, sent: chain, staple: nil, policy: .softFail) { request in
            asked.append(request.url)
            throw CocoaError(.fileNoSuchFile)
        }
        #expect(asked == ["http://crl.test/root.crl", "http://crl.test/ca.crl"])

        let unknown = try TrustEvaluator(configuration: .anchors([])).evaluate(chain, for: PeerName(host: "server.test"))
        #expect(!unknown.reachesTrustedAnchor)
        let report = RevocationReport.check(unknown, sent: chain, staple: nil, policy: .hardFail) { request in
            Issue.record("asked \(request.url) for a chain no CA vouches for")
            return []
        }
        #expect(report.notFetched && report.reasons.isEmpty)
        #expect(report.addressesNotAsked == ["http://crl.test/ca.crl", "http://crl.test/root.crl"])
    }

    /// A CRL file that is not one is refused before any verdict, with its code.
    @Test func aMalformedCRLIsRefused() throws {
        var configuration = TrustEvaluator.Configuration.caFiles([TestPaths.caBundle])
        configuration.crlsPEM = ["-----BEGIN X509 CRL-----\nbm90IGEgQ1JM\n-----END X509 CRL-----\n"]
        #expect(throws: CertificateError.self) { try TrustEvaluator(configuration: configuration) }
        do {
            _ = try TrustEvaluator(configuration: configuration)
        } catch let error as CertificateError {
            #expect(error.code == .malformedCRL)
        }
    }
}
