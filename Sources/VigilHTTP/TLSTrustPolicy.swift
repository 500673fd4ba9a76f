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

/// The standard policy: ``ConnectionDecision`` on every connection, with the ``ConnectionJudge``'s
/// verdict, the leaves approved for each origin (by the user after reviewing them, or by the
/// administrator) and the leaves reviewed moments before. An approval never overrides what
/// ``VigilCertificates/ApprovalRule`` refuses (another name, a weak key or signature, a CA as
/// leaf, revoked), even when the database holds one.
public struct EvaluatorTrustPolicy: TLSTrustPolicy {
    /// Judges the chain, the protocol, the pins and revocation.
    public var judge: ConnectionJudge
    /// The leaves approved per origin: an approval counts for the host and port it was made for
    /// and no other, even when the same client reaches several hosts.
    public var approvals: ApprovedLeaves
    /// The leaf (SHA-256 fingerprint) an origin must present, trusted or not: the one the user
    /// reviewed, or an account's rules accepted, moments before, under ``Endpoint/originKey``.
    /// Another leaf is refused even when a CA trusts it, so that nothing changes between the
    /// review and the request.
    public var reviewedLeaves: [String: String]

    /// A policy with `judge`, the approvals and the leaves just reviewed.
    public init(judge: ConnectionJudge, approvals: ApprovedLeaves, reviewedLeaves: [Endpoint: String] = [:]) {
        self.judge = judge
        self.approvals = approvals
        // Two spellings of one origin with different reviewed leaves: no leaf is that origin's
        // (an empty fingerprint matches none), whatever order the dictionary gives.
        self.reviewedLeaves = Dictionary(reviewedLeaves.map { ($0.key.originKey, $0.value) }, uniquingKeysWith: { a, b in a == b ? a : "" })
    }

    /// A policy with `judge`, the user's approvals (SHA-256 fingerprints per endpoint) and the leaves just reviewed.
    public init(judge: ConnectionJudge, approvals: [Endpoint: Set<String>] = [:], reviewedLeaves: [Endpoint: String] = [:]) {
        var leaves = ApprovedLeaves()
        for (endpoint, fingerprints) in approvals { leaves.add(fingerprints, for: endpoint, by: .user) }
        self.init(judge: judge, approvals: leaves, reviewedLeaves: reviewedLeaves)
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

    /// The decision for `chain` at `endpoint` before revocation (``ConnectionDecision``).
    public func decision(chain: [Certificate], negotiated: TLSProtocolVersion?, for endpoint: Endpoint) -> ConnectionDecision {
        ConnectionDecision.decide(
            judge.chainVerdict(chain, negotiated: negotiated, for: endpoint), chain: chain, endpoint: endpoint, approvals: approvals,
            reviewedLeaf: reviewedLeaves[endpoint.originKey])
    }

    /// Trusted, approved (an approved leaf the approval rule allows), or refused (a leaf other than the one reviewed among them).
    public func decide(chain: [Certificate], negotiated: TLSProtocolVersion?, for endpoint: Endpoint) -> TLSDecision {
        TLSDecision(decision(chain: chain, negotiated: negotiated, for: endpoint))
    }

    /// Adds the revocation verdict (``ConnectionDecision/requiring(revocation:)``): revoked,
    /// must-staple unmet or unknown under hard-fail is refused, even when approved.
    public func decide(_ decision: TLSDecision, chain: [Certificate], staple: [UInt8]?, for endpoint: Endpoint) -> TLSDecision {
        let outcome: ConnectionDecision.Outcome
        switch decision {
        case .trusted: outcome = .trusted
        case .approved: outcome = .approved
        case .refused: outcome = .refused
        }
        let before = ConnectionDecision(outcome: outcome, policies: [], evaluation: decision.evaluation, approvedBy: nil)
        return TLSDecision(before.requiring(revocation: judge.revocationVerdict(decision.evaluation, chain: chain, staple: staple)))
    }
}

extension TLSDecision {
    /// The TLS layer's form of a ``ConnectionDecision``.
    public init(_ decision: ConnectionDecision) {
        switch decision.outcome {
        case .trusted: self = .trusted(decision.evaluation)
        case .approved: self = .approved(decision.evaluation)
        case .refused: self = .refused(decision.evaluation)
        }
    }
}
