import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

@Suite("Trust evaluation")
struct TrustEvaluatorTests {
    /// testcerts case, name to check, expected verdict, reason codes that must be among the reasons.
    static let cases: [(String, String, Bool, [String])] = [
        ("valid-127.0.0.1", "127.0.0.1", true, []),
        ("valid-127.0.0.2", "127.0.0.2", true, []),
        ("valid-127.0.0.3", "127.0.0.3", true, []),
        ("valid-ipv6", "::1", true, []),
        ("valid-localhost", "localhost", true, []),
        ("renewed-a1", "127.0.0.1", true, []),
        ("renewed-a2", "127.0.0.1", true, []),
        ("rekeyed-b1", "127.0.0.1", true, []),
        ("expired", "127.0.0.1", false, ["expired"]),
        ("not-yet-valid", "127.0.0.1", false, ["not-yet-valid"]),
        ("wrong-host", "127.0.0.1", false, ["ip-mismatch"]),
        ("valid-127.0.0.1", "127.0.0.2", false, ["ip-mismatch"]),
        ("valid-localhost", "example.test", false, ["hostname-mismatch"]),
        ("self-signed", "127.0.0.1", false, ["self-signed"]),
        ("untrusted-root", "127.0.0.1", false, ["unknown-issuer"]),
        ("incomplete-chain", "127.0.0.1", false, ["unknown-issuer"]),
        ("rsa-1024", "127.0.0.1", false, ["weak-key"]),
        ("sha1-intermediate", "127.0.0.1", false, ["weak-signature"]),
        ("mitm-forged", "127.0.0.1", false, ["untrusted-root"]),
        ("cn-only", "127.0.0.1", false, ["ip-mismatch"]),
    ]

    @Test(arguments: cases)
    func testcertsCase(name: String, host: String, trusted: Bool, reasons: [String]) throws {
        let evaluator = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle]))
        let chain = try Certificate.load(path: TestPaths.testcert("\(name)-chain.pem"))
        let evaluation = evaluator.evaluate(chain, for: PeerName(host: host))
        #expect(evaluation.verdict.isTrusted == trusted, "\(name): \(evaluation.verdict.reasons.map(\.description))")
        let codes = Set(evaluation.verdict.reasons.map(\.code.rawValue))
        for reason in reasons {
            #expect(codes.contains(reason), "\(name) lacks \(reason): \(codes)")
        }
        if case .trusted(let basis) = evaluation.verdict {
            #expect(basis.source == .caFile)
            #expect(basis.path == TestPaths.caBundle)
            #expect(basis.anchorSubject == "CN=Vigil Test Root CA,O=Vigil Test PKI,C=DE")
        } else {
            #expect(evaluation.verdict.reasons.allSatisfy { !$0.message.isEmpty })
        }
    }

    @Test func everyReasonIsReportedNotOnlyTheFirst() throws {
        // Expired and for another address: both reasons.
        let evaluator = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle]))
        let chain = try Certificate.load(path: TestPaths.testcert("expired-chain.pem"))
        let codes = evaluator.evaluate(chain, for: PeerName(host: "127.0.0.9")).verdict.reasons.map(\.code.rawValue)
        #expect(codes.contains("expired"))
        #expect(codes.contains("ip-mismatch"))
    }

    @Test func evaluationTimeIsInjectable() throws {
        var configuration = TrustEvaluator.Configuration.caFiles([TestPaths.caBundle])
        configuration.time = ISO8601DateFormatter().date(from: "2000-06-01T00:00:00Z")
        let evaluator = try TrustEvaluator(configuration: configuration)
        let expired = try Certificate.load(path: TestPaths.testcert("expired-chain.pem"))
        // In 2000 the "expired" leaf is inside its window, but the CAs (from 2025) are not yet valid.
        let codes = evaluator.evaluate(expired, for: PeerName(host: "127.0.0.1")).verdict.reasons.map(\.code.rawValue)
        #expect(!codes.contains("expired"))
        #expect(codes.contains("not-yet-valid"))

        configuration.time = ISO8601DateFormatter().date(from: "2150-06-01T00:00:00Z")
        let later = try TrustEvaluator(configuration: configuration)
        let valid = try Certificate.load(path: TestPaths.testcert("valid-127.0.0.1-chain.pem"))
        #expect(later.evaluate(valid, for: PeerName(host: "127.0.0.1")).verdict.reasons.map(\.code.rawValue).contains("expired"))
    }

    @Test func noCommonNameFallbackAndNoPartialWildcards() throws {
        let evaluator = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle]))
        let cnOnly = try Certificate.load(path: TestPaths.testcert("cn-only-chain.pem"))
        #expect(!evaluator.evaluate(cnOnly, for: PeerName(host: "127.0.0.1")).verdict.isTrusted)
        #expect(!cnOnly[0].matches(PeerName(host: "127.0.0.1")))
        let localhost = try Certificate.load(path: TestPaths.testcert("valid-localhost.pem"))[0]
        #expect(localhost.matches(PeerName(host: "LOCALHOST")))
        #expect(!localhost.matches(PeerName(host: "localhost.example")))
    }

    @Test func systemStoreDoesNotTrustTheTestRoot() throws {
        let evaluator = try TrustEvaluator(configuration: .system)
        let chain = try Certificate.load(path: TestPaths.testcert("valid-127.0.0.1-chain.pem"))
        let evaluation = evaluator.evaluate(chain, for: PeerName(host: "127.0.0.1"))
        #expect(!evaluation.verdict.isTrusted)
        #expect(evaluation.verdict.reasons.map(\.code.rawValue).contains("unknown-issuer"))
    }

    @Test func anchorsGivenInCode() throws {
        let root = try Certificate.load(path: TestPaths.caBundle)
        let evaluator = try TrustEvaluator(configuration: .anchors(root))
        let chain = try Certificate.load(path: TestPaths.testcert("valid-localhost-chain.pem"))
        guard case .trusted(let basis) = evaluator.evaluate(chain, for: PeerName(host: "localhost")).verdict else {
            Issue.record("expected trusted")
            return
        }
        #expect(basis.source == .certificate)
    }

    @Test func emptyChainIsUntrustedNotAnError() throws {
        let evaluation = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])).evaluate([], for: nil)
        #expect(evaluation.verdict.reasons.map(\.code.rawValue) == ["no-certificate"])
    }

    @Test func missingCAFileThrows() {
        #expect(throws: CertificateError(.unreadableFile, "")) { try TrustEvaluator(configuration: .caFiles(["/nonexistent.pem"])) }
    }
}

@Suite("Chain summary")
struct ChainSummaryTests {
    let evaluator: TrustEvaluator
    init() throws { evaluator = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])) }

    @Test func validChainIsInOrderWithoutRoot() throws {
        let chain = try Certificate.load(path: TestPaths.testcert("valid-127.0.0.1-chain.pem"))
        let summary = evaluator.evaluate(chain, for: PeerName(host: "127.0.0.1")).chain
        #expect(summary.sent.map(\.role) == [.leaf, .intermediate])
        #expect(summary.verified.map(\.role) == [.leaf, .intermediate, .root])
        #expect(summary.verified.last?.isAnchor == true)
        #expect(!summary.rootSent)
        #expect(summary.sentInOrder)
        #expect(summary.missingIssuers.isEmpty)
    }

    @Test func rootSentAndOutOfOrderAreNoticed() throws {
        let leaf = try Certificate.load(path: TestPaths.testcert("valid-127.0.0.1.pem"))
        let intermediate = try Certificate.load(path: TestPaths.testcert("intermediate-ca.pem"))
        let root = try Certificate.load(path: TestPaths.caBundle)
        let withRoot = evaluator.evaluate(leaf + intermediate + root, for: PeerName(host: "127.0.0.1"))
        #expect(withRoot.verdict.isTrusted)
        #expect(withRoot.chain.rootSent)
        let shuffled = evaluator.evaluate(leaf + root + intermediate, for: PeerName(host: "127.0.0.1"))
        #expect(shuffled.verdict.isTrusted)
        #expect(!shuffled.chain.sentInOrder)
    }

    @Test func missingIntermediateIsNamed() throws {
        let chain = try Certificate.load(path: TestPaths.testcert("incomplete-chain-chain.pem"))
        let summary = evaluator.evaluate(chain, for: PeerName(host: "127.0.0.1")).chain
        #expect(summary.missingIssuers == ["CN=Vigil Test Intermediate CA,O=Vigil Test PKI,C=DE"])
    }

    @Test func unusedCertificatesAreListed() throws {
        let chain = try Certificate.load(path: TestPaths.testcert("valid-127.0.0.1-chain.pem"))
        let stray = try Certificate.load(path: TestPaths.testcert("untrusted-root-ca.pem"))
        let summary = evaluator.evaluate(chain + stray, for: PeerName(host: "127.0.0.1")).chain
        #expect(summary.unusedSent == [2])
    }
}
