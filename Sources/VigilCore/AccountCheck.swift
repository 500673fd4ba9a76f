import Foundation
public import Logging
public import VigilCertificates
import VigilHTTP
public import VigilRules
public import VigilStore

/// Checks an existing account's server against the chain the user reviewed, the way every later
/// connection must (the ownCloud SDK's bookmark certificate): what no approval can make safe is
/// refused; the extended-validation rule, when set, must hold; the same leaf passes; a changed
/// leaf passes only when the renewal rule accepts it, and then the stored chain is replaced and
/// the change audited with the rule's text; anything else must be reviewed again, never accepted
/// silently.
public struct AccountCheck: Sendable {
    public enum Result: Sendable, Equatable {
        /// The server presents the reviewed leaf.
        case unchanged
        /// The leaf changed and the renewal rule accepted it; the stored chain was replaced.
        case renewed(rule: String)
        /// The leaf changed and no rule accepts it, or the extended-validation rule fails: review again.
        case changed(reason: String)
        /// What no approval can make safe (a weak key, a TLS version below the minimum, a pin mismatch, ...).
        case refused(reasons: [String])

        public var isAcceptable: Bool {
            switch self {
            case .unchanged, .renewed: return true
            case .changed, .refused: return false
            }
        }
    }

    public var evaluator: TrustEvaluator
    public var approvals: CertificateApprovals
    public var accounts: Accounts
    public var options: AccountSetup.Options
    /// `connection.renewed-certificate-acceptance-rule` (parsed); nil: a changed leaf is never accepted.
    public var renewalRule: (text: String, rule: CertificateRule)?
    /// `connection.certificate-extended-validation-rule` (parsed); nil: none.
    public var extendedValidationRule: (text: String, rule: CertificateRule)?
    public var logger: Logger

    public init(evaluator: TrustEvaluator, approvals: CertificateApprovals, accounts: Accounts, options: AccountSetup.Options,
                renewalRule: (text: String, rule: CertificateRule)?, extendedValidationRule: (text: String, rule: CertificateRule)?,
                logger: Logger = Logger(label: "vigil.check")) {
        self.evaluator = evaluator
        self.approvals = approvals
        self.accounts = accounts
        self.options = options
        self.renewalRule = renewalRule
        self.extendedValidationRule = extendedValidationRule
        self.logger = logger
    }

    public func check(_ account: Account) async throws -> Result {
        let endpoint = try Endpoint(url: account.server)
        let handshake = try await TLSProbe(timeout: options.timeout, logger: logger, resolve: options.resolve).handshake(with: endpoint)
        let evaluation = options.requirements.apply(to: evaluator.evaluate(handshake.chain, for: endpoint.peerName), handshake: handshake, endpoint: endpoint)
        let refusals = ApprovalRule.refusals(evaluation, sent: handshake.chain)
        if !refusals.isEmpty { return .refused(reasons: refusals.map(\.message)) }
        guard let leaf = handshake.chain.first else { return .refused(reasons: ["\(endpoint) sent no certificate."]) }
        let approved = try approvals.approvedLeaves(host: endpoint.host, port: endpoint.port).contains(leaf.sha256Fingerprint)
        let passed = evaluation.verdict.isTrusted || approved
        let stored = (try? account.reviewedChainPEM.map { try Certificate.parsePEM($0) }) ?? nil
        guard let stored, let storedLeaf = stored.first else {
            return passed ? .unchanged : .changed(reason: "No reviewed chain is stored with this account, and the server's chain is neither trusted nor approved.")
        }
        let context = CertificateRuleContext(bookmark: stored, server: handshake.chain, serverPassedValidationOrIsUserAccepted: passed)
        if let extendedValidationRule, !extendedValidationRule.rule.evaluate(context) {
            return .changed(reason: "The extended-validation rule does not hold: \(extendedValidationRule.text)")
        }
        if storedLeaf == leaf {
            return passed ? .unchanged : .changed(reason: "The reviewed certificate is no longer trusted or approved (its approval was revoked?).")
        }
        guard let renewalRule, renewalRule.rule.evaluate(context) else {
            return .changed(reason: "\(endpoint) presents another certificate than the one reviewed (\(leaf.sha256Fingerprint)), and the renewal rule does not accept it: review it again.")
        }
        try accounts.replaceReviewedChain(id: account.id, with: AccountSetup.pem(handshake.chain) ?? "",
                                          because: "renewed to \(leaf.sha256Fingerprint) by the rule: \(renewalRule.text)")
        return .renewed(rule: renewalRule.text)
    }
}
