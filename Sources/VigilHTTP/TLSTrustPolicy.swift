public import VigilCertificates

/// Decides, during the TLS handshake and before any HTTP byte is sent, whether a server's chain
/// may carry the request. ``HTTPClient`` asks it on every connection; a refusal aborts the
/// handshake, so no header, credential or body reaches that server.
public protocol TLSTrustPolicy: Sendable {
    /// The chain as sent, on a connection that negotiated `negotiated` (nil: a protocol Vigil does not know).
    func decide(chain: [Certificate], negotiated: TLSProtocolVersion?, for endpoint: Endpoint) -> TLSDecision
    /// Asked once more when the server's stapled OCSP answer is known (after `decide` allowed the
    /// chain, before the client's next flight): revocation.
    func decide(_ decision: TLSDecision, chain: [Certificate], staple: [UInt8]?, for endpoint: Endpoint) -> TLSDecision
}

/// A policy's answer.
public enum TLSDecision: Sendable {
    /// The chain is trusted (the evaluation says by what).
    case trusted(TrustEvaluation)
    /// Untrusted, but the user approved this very leaf certificate (its SHA-256 fingerprint).
    case approved(TrustEvaluation)
    /// Refused: the evaluation says why, for the user to review.
    case refused(TrustEvaluation)

    /// False only for ``refused(_:)``.
    public var allowsRequest: Bool {
        if case .refused = self { return false }
        return true
    }

    /// The evaluation behind the decision, whatever it is.
    public var evaluation: TrustEvaluation {
        switch self {
        case .trusted(let evaluation), .approved(let evaluation), .refused(let evaluation): return evaluation
        }
    }
}

/// The standard policy: the ``ConnectionJudge``'s verdict, plus the leaf certificates a user
/// approved after reviewing them, by SHA-256 fingerprint, for this host and port. An approval
/// never overrides what ``VigilCertificates/ApprovalRule`` refuses (another name, a weak key or
/// signature, a CA as leaf, revoked), even when the database holds one.
public struct EvaluatorTrustPolicy: TLSTrustPolicy {
    /// Judges the chain, the protocol, the pins and revocation.
    public var judge: ConnectionJudge
    /// SHA-256 fingerprints (hex, as ``VigilCertificates/Certificate/sha256Fingerprint`` gives them)
    /// of approved leaves, per host and port: an approval counts for the endpoint it was made for
    /// and no other, even when the same client reaches several hosts.
    public var approvals: [Endpoint: Set<String>]
    /// The leaf (SHA-256 fingerprint) an endpoint must present, trusted or not: the one the user
    /// reviewed, or an account's rules accepted, moments before. Another leaf is refused even when
    /// a CA trusts it, so that nothing changes between the review and the request.
    public var reviewedLeaves: [Endpoint: String]

    /// A policy with `judge`, the user's approvals and the leaves just reviewed.
    public init(judge: ConnectionJudge, approvals: [Endpoint: Set<String>] = [:], reviewedLeaves: [Endpoint: String] = [:]) {
        self.judge = judge
        self.approvals = approvals
        self.reviewedLeaves = reviewedLeaves
    }

    /// With the default requirements (TLS 1.2, soft-fail revocation) but for `pins` and `revocation`.
    public init(
        evaluator: TrustEvaluator, approvals: [Endpoint: Set<String>] = [:], pins: PublicKeyPins = PublicKeyPins(),
        reviewedLeaves: [Endpoint: String] = [:], revocation: RevocationChecker = RevocationChecker()
    ) {
        self.init(
            judge: ConnectionJudge(evaluator: evaluator, requirements: ConnectionRequirements(pins: pins, revocation: revocation)), approvals: approvals,
            reviewedLeaves: reviewedLeaves)
    }

    /// Adds the revocation verdict: revoked, must-staple unmet or unknown under hard-fail is refused, even when approved.
    public func decide(_ decision: TLSDecision, chain: [Certificate], staple: [UInt8]?, for endpoint: Endpoint) -> TLSDecision {
        let evaluation = judge.revocationVerdict(decision.evaluation, chain: chain, staple: staple)
        // Revoked, must-staple unmet, or unknown under hard-fail: refused, approved or not.
        if evaluation.revocation?.reasons.isEmpty == false { return .refused(evaluation) }
        switch decision {
        case .trusted: return .trusted(evaluation)
        case .approved: return .approved(evaluation)
        case .refused: return .refused(evaluation)
        }
    }

    /// The leaves approved for `endpoint` (host compared case-insensitively).
    public func approvedLeaves(for endpoint: Endpoint) -> Set<String> {
        approvals.first { $0.key.host.lowercased() == endpoint.host.lowercased() && $0.key.port == endpoint.port }?.value ?? []
    }

    /// Refuses a leaf other than the one reviewed; otherwise trusted, approved (an approved leaf the approval rule allows), or refused.
    public func decide(chain: [Certificate], negotiated: TLSProtocolVersion?, for endpoint: Endpoint) -> TLSDecision {
        var evaluation = judge.chainVerdict(chain, negotiated: negotiated, for: endpoint)
        if let reviewed = reviewedLeaves.first(where: { $0.key.host.lowercased() == endpoint.host.lowercased() && $0.key.port == endpoint.port })?.value,
            chain.first?.sha256Fingerprint != reviewed
        {
            evaluation.verdict = .untrusted(
                evaluation.verdict.reasons + [
                    TrustReason(
                        code: .notReviewed,
                        message: "\(endpoint) presents another certificate than the one reviewed moments before (\(reviewed)).")
                ])
            return .refused(evaluation)
        }
        if evaluation.verdict.isTrusted { return .trusted(evaluation) }
        guard let leaf = chain.first, approvedLeaves(for: endpoint).contains(leaf.sha256Fingerprint),
            ApprovalRule.refusals(evaluation, sent: chain).isEmpty
        else {
            return .refused(evaluation)
        }
        return .approved(evaluation)
    }
}
