public import VigilCertificates

/// The one decision whether a connection to an origin may carry a request, composed of named
/// policies, each with its typed reasons (after swift-certificates' `VerifierPolicy`):
///
/// 1. `reviewed-leaf`: when a leaf was reviewed moments before (account setup), the server must
///    present that very leaf, trusted or not;
/// 2. `chain`: ``ConnectionJudge``'s verdict (path validation by profile, the protocol, the pins,
///    a locally added root under `connection.locally-added-roots`, revocation when known);
/// 3. `approval-rule`: what no approval can make acceptable (``VigilCertificates/ApprovalRule``:
///    another name, weak cryptography, a CA as leaf, revoked, a refused added root);
/// 4. `approval`: a leaf approved for this origin, by the user or the administrator
///    (``ApprovedLeaves``; every spelling of the host is one origin);
/// 5. `revocation` (``requiring(revocation:)``): revoked, must-staple unmet or unknown under
///    hard-fail refuses, approved or not.
///
/// The HTTP client's trust policy (``EvaluatorTrustPolicy``), account setup's review, `vigil
/// account check` and `vigil certificates approve` ask it and render its answer.
public struct ConnectionDecision: Sendable {
    /// What the decision allows.
    public enum Outcome: String, Sendable, Hashable {
        /// A CA vouches for the chain, and every policy agrees.
        case trusted
        /// No CA vouches for it, but its leaf is approved for this origin (``approvedBy`` says by whom).
        case approved
        /// Refused: nothing is sent.
        case refused
    }

    /// One policy's part.
    public struct PolicyResult: Sendable, Hashable {
        /// The policy's name (`reviewed-leaf`, `chain`, `approval-rule`, `approval`, `revocation`).
        public var policy: String
        /// False when the policy refuses (its reasons say why).
        public var passed: Bool
        /// Why it refuses; empty when it passed.
        public var reasons: [TrustReason]
    }

    /// What the decision allows.
    public var outcome: Outcome
    /// Each policy asked, in order, with its result.
    public var policies: [PolicyResult]
    /// The evaluation behind the decision (the chain's verdict, its revocation report).
    public var evaluation: TrustEvaluation
    /// Who approved the leaf, for an approved outcome.
    public var approvedBy: ApprovedLeaves.Source?

    /// True unless refused.
    public var allowsRequest: Bool { outcome != .refused }

    /// The reasons of the policies that refused.
    public var reasons: [TrustReason] { policies.filter { !$0.passed }.flatMap(\.reasons) }

    /// What no approval can override (the `approval-rule` policy's, or a leaf other than the one
    /// reviewed): when empty and the outcome is refused, the user may review and approve the leaf.
    public var refusesApproval: [TrustReason] {
        policies.filter { !$0.passed && ($0.policy == "approval-rule" || $0.policy == "reviewed-leaf" || $0.policy == "revocation") }
            .flatMap(\.reasons)
    }

    /// Decides for `chain` (as sent) at `endpoint`, judged as `evaluation`, with `approvals`;
    /// `reviewedLeaf`: the SHA-256 fingerprint of the leaf reviewed for this origin moments before.
    public static func decide(
        _ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint, approvals: ApprovedLeaves = ApprovedLeaves(),
        reviewedLeaf: String? = nil
    ) -> ConnectionDecision {
        var decision = ConnectionDecision(outcome: .refused, policies: [], evaluation: evaluation, approvedBy: nil)
        if let reviewedLeaf,
            ApprovedLeaves.normalized(reviewedLeaf).isEmpty
                || ApprovedLeaves.normalized(chain.first?.sha256Fingerprint ?? "") != ApprovedLeaves.normalized(reviewedLeaf)
        {
            let reason = TrustReason(
                code: .notReviewed, message: "\(endpoint) presents another certificate than the one reviewed moments before (\(reviewedLeaf)).")
            decision.policies.append(PolicyResult(policy: "reviewed-leaf", passed: false, reasons: [reason]))
            decision.evaluation.verdict = .untrusted(evaluation.verdict.reasons + [reason])
            return decision
        }
        if reviewedLeaf != nil { decision.policies.append(PolicyResult(policy: "reviewed-leaf", passed: true, reasons: [])) }
        if evaluation.verdict.isTrusted {
            decision.policies.append(PolicyResult(policy: "chain", passed: true, reasons: []))
            decision.outcome = .trusted
            return decision
        }
        decision.policies.append(PolicyResult(policy: "chain", passed: false, reasons: evaluation.verdict.reasons))
        let refusals = ApprovalRule.refusals(evaluation, sent: chain).map { TrustReason(code: $0.code, message: $0.message) }
        decision.policies.append(PolicyResult(policy: "approval-rule", passed: refusals.isEmpty, reasons: refusals))
        guard refusals.isEmpty else { return decision }
        guard let leaf = chain.first, let source = approvals.source(of: leaf, at: endpoint) else {
            let reason = TrustReason(code: .notApproved, message: "The certificate of \(endpoint) is not trusted and not approved for \(endpoint).")
            decision.policies.append(PolicyResult(policy: "approval", passed: false, reasons: [reason]))
            return decision
        }
        decision.policies.append(PolicyResult(policy: "approval", passed: true, reasons: []))
        decision.outcome = .approved
        decision.approvedBy = source
        return decision
    }

    /// This decision with `evaluation`'s revocation report (``ConnectionJudge/revocationVerdict(_:chain:staple:given:)``):
    /// revoked, must-staple unmet, or unknown under hard-fail refuses, approved or not.
    public func requiring(revocation evaluation: TrustEvaluation) -> ConnectionDecision {
        var decision = self
        decision.evaluation = evaluation
        let reasons = evaluation.revocation?.reasons ?? []
        decision.policies.append(PolicyResult(policy: "revocation", passed: reasons.isEmpty, reasons: reasons))
        if !reasons.isEmpty {
            decision.outcome = .refused
            decision.approvedBy = nil
        }
        return decision
    }
}
