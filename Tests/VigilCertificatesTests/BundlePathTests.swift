import Foundation
import Testing
import VigilTestSupport

@testable import VigilCertificates

/// A chain sent with a server's whole bundle, hundreds of certificates (scripts/hostile-bundle.py
/// makes them with new keys on every run): path building finds the issuer wherever it sits, and a
/// hostile mesh of same-named CAs signing each other in cycles stops at the bound on its work.
@Suite("Bundles of hundreds of certificates")
struct BundlePathTests {
    static let directory: Result<URL, any Error> = Result {
        let directory = try TestPaths.temporaryDirectory()
        let made = try CommandRunner.run("/usr/bin/python3", [TestPaths.root.appendingPathComponent("scripts/hostile-bundle.py").path, directory.path])
        guard made.status == 0 else { throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: made.standardError]) }
        return directory
    }

    func evaluate(_ file: String) throws -> (TrustEvaluation, [Certificate]) {
        let directory = try Self.directory.get()
        var configuration = TrustEvaluator.Configuration.caFiles([directory.appendingPathComponent("root.pem").path])
        configuration.time = try Date("2026-01-15T00:00:00Z", strategy: .iso8601)
        let chain = try Certificate.load(path: directory.appendingPathComponent(file).path)
        return (try TrustEvaluator(configuration: configuration).evaluate(chain, for: PeerName(host: "server.test")), chain)
    }

    @Test func theIssuerIsFoundAfterThreeHundredOthers() throws {
        let (evaluation, chain) = try evaluate("big-bundle.pem")
        #expect(chain.count == 302)
        #expect(evaluation.verdict.isTrusted, "\(evaluation.verdict.reasons.map(\.message))")
    }

    /// The same CA cross-signed by a root nobody trusts is sent first: OpenSSL takes it and stops;
    /// path building finds the copy signed by the trusted root, the last of 302 certificates.
    @Test func aCrossSignedCopySentFirstDoesNotHideTheRightOne() throws {
        let (evaluation, chain) = try evaluate("cross-signed-bundle.pem")
        #expect(evaluation.verdict.isTrusted, "\(evaluation.verdict.reasons.map(\.message))")
        #expect(evaluation.chain.builtFromAlternative)
        #expect(evaluation.verifiedChain.dropFirst().first == chain.last)
    }

    /// 400 certificates of one name signing each other in cycles: the search stops at its bound,
    /// gives the same candidates in the same order every time, and the verdict is untrusted.
    @Test func aHostileMeshIsBoundedByWork() throws {
        let (evaluation, chain) = try evaluate("mesh.pem")
        #expect(!evaluation.verdict.isTrusted)
        #expect(evaluation.chain.pathsTried <= PathCandidates.maximumCandidates + 1)
        let leaf = try #require(chain.first)
        let first = PathCandidates.search(leaf: leaf, pool: Array(chain.dropFirst()))
        let second = PathCandidates.search(leaf: leaf, pool: Array(chain.dropFirst()))
        #expect(first.signatureChecks <= PathCandidates.maximumSignatureChecks)
        #expect(first.candidates.count <= PathCandidates.maximumCandidates)
        #expect(first.candidates.allSatisfy { $0.count <= PathCandidates.maximumDepth })
        #expect(first.candidates == second.candidates && first.signatureChecks == second.signatureChecks)
    }
}
