import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

@testable import VigilHTTP

/// The one decision (``ConnectionDecision``): every spelling of a host is one origin, for the
/// approvals and the reviewed leaf alike, whichever caller asks.
@Suite("Connection decision")
struct ConnectionDecisionTests {
    /// A self-signed leaf for files.example.com, ::1 and 127.0.0.1 (untrusted: it needs an approval).
    static func selfSigned() throws -> [Certificate] {
        let directory = try TestPaths.temporaryDirectory()
        try CommandRunner.openssl(
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "key.pem", "-out", "leaf.pem", "-days", "30",
                "-subj", "/CN=files.example.com", "-addext", "subjectAltName=DNS:files.example.com,IP:::1,IP:127.0.0.1",
                "-addext", "extendedKeyUsage=serverAuth", "-addext", "basicConstraints=critical,CA:FALSE",
            ], in: directory)
        return try Certificate.load(path: directory.appendingPathComponent("leaf.pem").path)
    }

    static let spellings: [(approvedAs: String, askedAs: String)] = [
        ("https://files.example.com", "https://FILES.Example.COM"),
        ("https://files.example.com", "https://files.example.com."),
        ("https://Files.Example.com.", "https://files.example.com:443"),
        ("https://files.example.com:443/remote.php", "https://files.example.com"),
        ("https://[::1]", "https://[0:0:0:0:0:0:0:1]:443"),
        ("https://[0000::0001]:443", "https://[::1]"),
        ("https://127.0.0.1", "https://127.0.0.1:443"),
    ]

    @Test(arguments: 0..<spellings.count)
    func everySpellingOfAHostIsOneOrigin(_ index: Int) throws {
        let (approvedAs, askedAs) = Self.spellings[index]
        let chain = try Self.selfSigned()
        let leaf = try #require(chain.first)
        let approvedAt = try Endpoint(url: approvedAs), askedAt = try Endpoint(url: askedAs)
        let evaluator = try TrustEvaluator(configuration: .anchors([]))
        let evaluation = evaluator.evaluate(chain, for: askedAt.peerName)
        #expect(!evaluation.verdict.isTrusted)

        // The decision itself.
        let approvals = ApprovedLeaves([leaf.sha256Fingerprint], for: approvedAt)
        let decision = ConnectionDecision.decide(evaluation, chain: chain, endpoint: askedAt, approvals: approvals)
        #expect(decision.outcome == .approved && decision.approvedBy == .user, "\(approvedAs) asked as \(askedAs): \(decision.reasons)")
        // The HTTP client's policy, with the approval and with the leaf reviewed under the other spelling.
        let policy = EvaluatorTrustPolicy(evaluator: evaluator, approvals: [approvedAt: [leaf.sha256Fingerprint]])
        #expect(policy.decide(chain: chain, negotiated: .tls13, for: askedAt).allowsRequest)
        let reviewed = EvaluatorTrustPolicy(
            judge: ConnectionJudge(evaluator: evaluator), approvals: [approvedAt: [leaf.sha256Fingerprint]],
            reviewedLeaves: [approvedAt: String(repeating: "AB:", count: 31) + "AB"])
        let refused = reviewed.decision(chain: chain, negotiated: .tls13, for: askedAt)
        #expect(refused.outcome == .refused && refused.refusesApproval.map(\.code) == [.notReviewed], "another leaf than the one reviewed")
        // Another port is another origin.
        let elsewhere = Endpoint(host: askedAt.host, port: 8443)
        let other = ConnectionDecision.decide(evaluation, chain: chain, endpoint: elsewhere, approvals: approvals)
        #expect(other.outcome == .refused && other.refusesApproval.isEmpty && other.reasons.map(\.code).contains(.notApproved))
    }

    /// What no approval overrides is refused whatever is approved, and says so by its policy.
    @Test func anApprovalDoesNotOverrideTheApprovalRule() throws {
        let chain = try Self.selfSigned()
        let leaf = try #require(chain.first)
        let endpoint = try Endpoint(url: "https://other.example.com")
        let evaluation = try TrustEvaluator(configuration: .anchors([])).evaluate(chain, for: endpoint.peerName)
        let decision = ConnectionDecision.decide(
            evaluation, chain: chain, endpoint: endpoint, approvals: ApprovedLeaves([leaf.sha256Fingerprint], for: endpoint))
        #expect(decision.outcome == .refused)
        #expect(decision.policies.map(\.policy) == ["chain", "approval-rule"])
        #expect(decision.refusesApproval.contains { $0.code == .anotherName }, "\(decision.reasons)")
    }

    /// The administrator's approval is named as such; the user's wins when both approved.
    @Test func whoApprovedIsKept() throws {
        let chain = try Self.selfSigned()
        let leaf = try #require(chain.first)
        let endpoint = try Endpoint(url: "https://files.example.com")
        let evaluation = try TrustEvaluator(configuration: .anchors([])).evaluate(chain, for: endpoint.peerName)
        var approvals = ApprovedLeaves([leaf.sha256Fingerprint.lowercased().replacingOccurrences(of: ":", with: "")], for: endpoint, by: .administrator)
        #expect(ConnectionDecision.decide(evaluation, chain: chain, endpoint: endpoint, approvals: approvals).approvedBy == .administrator)
        approvals.add([leaf.sha256Fingerprint], for: endpoint, by: .user)
        #expect(ConnectionDecision.decide(evaluation, chain: chain, endpoint: endpoint, approvals: approvals).approvedBy == .user)
    }
}
