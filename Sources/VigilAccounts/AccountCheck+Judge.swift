import FoundationEssentials
public import VigilCertificates
import VigilHTTP
import VigilRules
public import VigilStore
import VigilText

/// Account check's first stage: the certificate the server presents now, judged against the chain
/// reviewed at setup by the account's own CAs and the renewal rules (``judge(_:)``), and what a
/// replaced leaf's approval becomes.
extension AccountCheck {
    /// The approval of a leaf that a renewal or a new review replaced is revoked (audited), so
    /// that the old certificate cannot come back later as a "renewal" of its successor.
    func retire(_ old: Certificate, at endpoint: Endpoint, replacedBy new: Certificate) async throws {
        guard old != new else { return }
        for approval in try await approvals.list()
        where Endpoint(host: approval.host, port: approval.port).isSameOrigin(as: endpoint) && approval.sha256 == old.sha256Fingerprint {
            if let id = approval.id { _ = try await approvals.revoke(id: id, reason: "replaced by \(new.sha256Fingerprint)") }
        }
    }

    /// The evaluator for `account`: its own CA certificates when it was set up with some
    /// (``VigilStore/Account/trustAnchorsPEM``), with the command's policy inputs; the command's
    /// evaluator otherwise. A stored anchor that cannot be read is an error, never the system store.
    public func evaluator(for account: Account) throws -> TrustEvaluator {
        let anchors: [Certificate]
        do {
            guard let stored = try account.trustAnchors() else { return evaluator }
            anchors = stored
        } catch let error as StoreError {
            throw AccountSetupError(
                .certificateRejected,
                "\(error.reason) Give them again with \(SuggestedCommand.line(["vigil", "account", "edit", account.id, "--ca-file", "FILE"])).")
        }
        return try TrustEvaluator(configuration: evaluator.configuration.onlyTrusting(anchors))
    }

    func judge(_ account: Account) async throws -> (result: Result, chain: [Certificate], evaluation: TrustEvaluation, endpoint: Endpoint) {
        let endpoint = try Endpoint(url: account.server)
        let handshake = try await TLSProbe(timeout: options.timeout, logger: logger, resolve: options.resolve, proxy: options.proxy).handshake(with: endpoint)
        let chain = handshake.chain
        let evaluator = try self.evaluator(for: account)
        let evaluation = await ConnectionJudge(evaluator: evaluator, requirements: options.requirements).verdict(for: handshake, endpoint: endpoint)
        func done(_ result: Result) -> (Result, [Certificate], TrustEvaluation, Endpoint) { (result, chain, evaluation, endpoint) }

        guard let leaf = chain.first else {
            return done(.refused(reasons: [ApprovalRule.Refusal(code: .noCertificate, message: "\(endpoint) sent no certificate.")]))
        }
        // The one decision (ConnectionDecision): what no approval overrides refuses; trusted or
        // approved for this origin passes.
        let approvedLeaves = try await approvals.leaves(for: [endpoint], preApproved: options.preApproved)
        let decision = ConnectionDecision.decide(evaluation, chain: chain, endpoint: endpoint, approvals: approvedLeaves)
        let refusals = decision.refusesApproval
        if !refusals.isEmpty { return done(.refused(reasons: refusals.map { ApprovalRule.Refusal(code: $0.code, message: $0.message) })) }
        let passed = decision.allowsRequest
        let stored: [Certificate]?
        do {
            stored = try account.reviewedChain()
        } catch let error as StoreError {
            // A damaged chain is said as such: never compared, never taken for a missing one.
            return done(
                .changed(
                    reason:
                        "\(error.reason) Review the server's certificate again: \(SuggestedCommand.line(["vigil", "account", "login", account.id])) (it then keeps the new chain)."
                ))
        }
        guard let stored, let storedLeaf = stored.first else {
            // Nothing to compare with (an account from before Vigil kept the chain): never a
            // silent acceptance; reviewed once, the chain is then kept.
            return done(.changed(reason: "No reviewed chain is stored with this account: review the server's certificate once; it is then kept."))
        }
        // Rules read the verified paths (rootCertificate is the trusted root), the chains as sent
        // where nothing trusts them.
        let context = CertificateRuleContext(
            bookmark: CertificateRuleContext.path(evaluator.evaluate(stored, for: endpoint.peerName), sent: stored),
            server: CertificateRuleContext.path(evaluation, sent: chain), serverPassedValidationOrIsUserAccepted: passed)
        if storedLeaf == leaf {
            // The same certificate, judged differently now: say what the judgement found.
            let why = evaluation.verdict.reasons.map(\.message).joined(separator: " ")
            return done(
                passed
                    ? .unchanged
                    : .changed(
                        reason:
                            "The server presents the certificate reviewed at setup, but it is not trusted now"
                            + (why.isEmpty ? "" : ": \(why)") + " No approval of it is in force for \(endpoint)."))
        }
        // Another leaf than the reviewed one, through a root added to this machine's trust store:
        // an interception, named as such; no rule accepts it without the user's review.
        let marked = evaluation.markingInterception(
            leaf: leaf, known: [storedLeaf.sha256Fingerprint], knownFrom: "the certificate reviewed when the account was added")
        if let interception = marked.findings.first(where: { $0.code == .interception }) {
            let by = marked.locallyAddedAnchor.map { " by \($0.anchorSubject)" } ?? ""
            return (.changed(reason: "INTERCEPTED\(by): " + interception.message + " Review it before anything is sent."), chain, marked, endpoint)
        }
        if let issued = leaf.notBefore, let reviewed = storedLeaf.notBefore, issued < reviewed {
            return done(
                .changed(
                    reason:
                        "\(endpoint) presents a certificate issued before the one reviewed (\(leaf.sha256Fingerprint)): an old certificate coming back is never a renewal; review it."
                ))
        }
        // As the ownCloud SDK orders them: the extended-validation rule says whether the
        // certificate is valid for the account, and it lets the connection proceed only when the
        // certificate is trusted or already approved by the user (the SDK's defaultWouldProceed):
        // it never approves anything. When it fails (or is unset, or the certificate is neither
        // trusted nor approved), the renewal rule says whether a renewed certificate is accepted
        // without asking (its approval carried over); when that fails too, the user reviews it.
        let accepting: (text: String, setting: String)
        if passed, let extendedValidationRule, extendedValidationRule.rule.evaluate(context) {
            accepting = (extendedValidationRule.text, "the extended-validation rule")
        } else if let renewalRule, renewalRule.rule.evaluate(context) {
            accepting = (renewalRule.text, "the renewal rule")
        } else {
            let tried = extendedValidationRule == nil ? "the renewal rule does not" : "neither the extended-validation rule nor the renewal rule does"
            // What the judgement of the new chain found, when it is not trusted: said, not left out.
            let why = passed ? "" : " It is not trusted either: " + evaluation.verdict.reasons.map(\.message).joined(separator: " ")
            return done(
                .changed(
                    reason:
                        "\(endpoint) presents another certificate than the one reviewed (\(leaf.sha256Fingerprint)), and \(tried) accept it: review it again."
                        + why
                ))
        }
        if !passed {
            // The user's approval of the reviewed leaf carries over to the renewal the rule
            // accepted; a renewal of a CA-trusted leaf that no CA trusts has nothing to carry.
            guard approvedLeaves.source(of: storedLeaf, at: endpoint) != nil else {
                return done(
                    .changed(
                        reason:
                            "The renewal rule accepts the new certificate, but it is neither trusted nor approved, and the reviewed one was trusted, not approved: review it again."
                    ))
            }
            try await approvals.approve(
                leaf, host: endpoint.host, port: endpoint.port,
                note: "renewal of \(storedLeaf.sha256Fingerprint), accepted by the rule: \(accepting.text)")
            try await retire(storedLeaf, at: endpoint, replacedBy: leaf)
        }
        try await accounts.replaceReviewedChain(
            id: account.id, with: AccountSetup.pem(chain) ?? "",
            because: "renewed to \(leaf.sha256Fingerprint) by the rule: \(accepting.text)")
        return done(.renewed(rule: accepting.text))
    }
}
