import Foundation
import Testing
import VigilCertificates
import VigilSimulator
import VigilTestSupport

@testable import VigilHTTP

/// Revocation on real connections: the simulator's revocation scenarios (a CA minted for the
/// run, its OCSP responder and CRLs on loopback) and `openssl s_server` stapling an answer.
@Suite("Revocation")
struct RevocationTests {
    func client(_ policy: RevocationPolicy) throws -> HTTPClient {
        let evaluator = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle]))
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .seconds(10)
        return HTTPClient(policy: EvaluatorTrustPolicy(evaluator: evaluator, revocation: RevocationChecker(policy: policy)), configuration: configuration)
    }

    /// The refusal's evaluation when `send` fails as untrusted; nil when it does not.
    func refusal(_ client: HTTPClient, _ url: String) async -> TrustEvaluation? {
        do {
            _ = try await client.send(HTTPRequest(url: url))
            return nil
        } catch let error as HTTPError where error.code == .untrustedCertificate {
            return error.evaluation
        } catch {
            return nil
        }
    }

    /// A certificate the CA revoked is refused on the connection, under every policy but off
    /// (off fetches nothing), and not one byte of the request reaches the server.
    @Test(arguments: ["revoked-by-ocsp", "revoked-by-crl", "revoked-intermediate"])
    func aRevokedChainIsRefusedBeforeAnyRequest(scenario: String) async throws {
        try await withRunningSimulator(scenario) { running in
            for policy in [RevocationPolicy.softFail, .hardFail] {
                let evaluation = try #require(await refusal(try client(policy), running.url()), "\(policy)")
                let revoked = evaluation.verdict.reasons.filter { $0.code == .revoked }
                #expect(revoked.count == 1, "\(evaluation.verdict.reasons)")
                #expect(!ApprovalRule.refusals(evaluation, sent: []).filter { $0.code == .revoked }.isEmpty, "never approvable")
            }
            #expect(running.simulator.journal.entries.isEmpty, "nothing was sent")
            // Off fetches nothing: the chain passes (the policy's own choice).
            let answer = try await client(.off).send(HTTPRequest(url: running.url()))
            #expect(answer.status == 200)
            #expect(running.simulator.journal.entries.count == 1)
        }
    }

    /// A chain under review (not trusted, not approved) names URLs Vigil does not visit: a hostile
    /// server could name any. Its staple is still read; hard-fail does not turn it into a refusal
    /// the user could not review.
    @Test func anUntrustedChainSendsVigilNowhere() async throws {
        try await withRunningSimulator("ocsp-good") { running in
            let endpoint = Endpoint(host: "127.0.0.1", port: try #require(running.listeners.first { $0.host == 1 && $0.scheme == "https" }?.port))
            let handshake = try await TLSProbe().handshake(with: endpoint)
            let judge = ConnectionJudge(
                evaluator: try TrustEvaluator(configuration: .anchors([])),
                requirements: ConnectionRequirements(revocation: RevocationChecker(policy: .hardFail)))
            let evaluation = await judge.verdict(for: handshake, endpoint: endpoint)
            #expect(!evaluation.verdict.isTrusted)
            #expect(evaluation.revocation?.notFetched == true && evaluation.revocation?.reasons.isEmpty == true)
            #expect(running.simulator.revocationRequests.isEmpty, "\(running.simulator.revocationRequests)")
        }
    }

    /// A forged "good" (signed by another CA) is no answer; the CRL still says revoked.
    @Test func aForgedAnswerIsNotBelieved() async throws {
        try await withRunningSimulator("ocsp-wrong-key") { running in
            let evaluation = try #require(await refusal(try client(.softFail), running.url()))
            let checks = try #require(evaluation.revocation?.checks.filter { $0.depth == 0 })
            #expect(checks.map(\.source) == [.ocsp, .crl])
            #expect(checks[0].status == nil && checks[0].problem?.contains("not signed by the certificate's issuer") == true)
            #expect(checks[1].status == .revoked)
        }
    }

    /// An outage is a finding under soft-fail and a refusal under hard-fail; answers and failures
    /// are cached, so a second connection does not ask again.
    @Test func anOutageDependsOnThePolicy() async throws {
        try await withRunningSimulator("ocsp-responder-down") { running in
            let answer = try await client(.softFail).send(HTTPRequest(url: running.url()))
            #expect(answer.status == 200)
            let report = try #require(answer.tls?.evaluation.revocation)
            #expect(report.reasons.isEmpty && report.findings.count == 1, "\(report.findings)")
            let evaluation = try #require(await refusal(try client(.hardFail), running.url()))
            #expect(evaluation.verdict.reasons.map(\.code) == [.revocationUnknown])
        }
        try await withRunningSimulator("ocsp-good") { running in
            for _ in 0..<3 {
                let answer = try await client(.hardFail).send(HTTPRequest(url: running.url()))
                #expect(answer.status == 200)
            }
            #expect(running.simulator.revocationRequests["/ocsp"] == 1, "cached until its nextUpdate: \(running.simulator.revocationRequests)")
            #expect(running.simulator.revocationRequests["/crl/root.crl"] == 1)
        }
    }

    /// The server's stapled answer is read in the handshake: a good one decides without a fetch;
    /// a revoked one aborts the handshake (even with the policy off, which fetches nothing).
    @Test func aStapledAnswerDecidesInTheHandshake() async throws {
        for (scenario, revoked) in [("ocsp-good", false), ("revoked-by-ocsp", true)] {
            let (chain, key, staple) = try await withRunningSimulator(scenario) { running in
                let chain = try #require(running.simulator.mintedChain(for: "127.0.0.1"))
                let key = try #require(running.simulator.mintedKey(for: "127.0.0.1"))
                let certificates = try Certificate.parsePEM(chain)
                let request = try #require(certificates[0].ocspRequest(issuer: certificates[1]))
                var configuration = HTTPClient.Configuration()
                configuration.allowPlainHTTP = true
                let fetch = HTTPClient(policy: EvaluatorTrustPolicy(evaluator: try TrustEvaluator()), configuration: configuration)
                let answer = try await fetch.send(
                    HTTPRequest(
                        method: "POST", url: try #require(certificates[0].ocspResponders.first), headers: [("Content-Type", "application/ocsp-request")],
                        body: request))
                return (chain, key, answer.body)
            }
            let server = try TLSTestServer(chainPEM: chain, keyPEM: key, staple: staple)
            defer { server.stop() }
            let endpoint = Endpoint(host: "127.0.0.1", port: server.port)
            let handshake = try await TLSProbe().handshake(with: endpoint)
            #expect(handshake.staple == staple)

            let url = "https://127.0.0.1:\(server.port)/"
            if revoked {
                let evaluation = try #require(await refusal(try client(.off), url))
                let check = try #require(evaluation.revocation?.checks.first)
                #expect(check.source == .staple && check.status == .revoked)
            } else {
                // The simulator has stopped: only the staple can say "good" (the intermediate's CRL
                // is unreachable now: a finding under soft-fail).
                let answer = try await client(.softFail).send(HTTPRequest(url: url))
                let checks = try #require(answer.tls?.evaluation.revocation?.checks)
                #expect(checks.filter { $0.depth == 0 }.map(\.source) == [.staple], "no fetch for the leaf: \(checks)")
                #expect(checks.first?.status == .good)
            }
        }
    }
}
