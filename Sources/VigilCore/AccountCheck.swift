import Foundation
public import Logging
public import VigilCertificates
public import VigilHTTP
public import VigilRules
public import VigilSecrets
public import VigilStore
import VigilAuth

/// Checks an existing account's server against the chain the user reviewed, the way every later
/// connection must (the ownCloud SDK's bookmark certificate): what no approval can make safe is
/// refused; the extended-validation rule, when set, must hold; the same leaf passes; a changed
/// leaf passes only when the renewal rule accepts it, and then the stored chain is replaced and
/// the change audited with the rule's text; anything else must be reviewed again, never accepted
/// silently. ``connect(_:secrets:interaction:)`` then reads the user's files root with the stored
/// credentials, through a client whose policy accepts exactly what was judged.
public struct AccountCheck: Sendable {
    public enum Result: Sendable, Equatable {
        /// The server presents the reviewed leaf.
        case unchanged
        /// The leaf changed and the renewal rule accepted it; the stored chain was replaced.
        case renewed(rule: String)
        /// The leaf changed and no rule accepts it, or the extended-validation rule fails: review again.
        case changed(reason: String)
        /// The leaf changed, the user reviewed it again and approved it; the stored chain was replaced.
        case approvedAgain
        /// What no approval can make safe (a weak key, a TLS version below the minimum, a pin mismatch, ...).
        case refused(reasons: [String])

        public var isAcceptable: Bool {
            switch self {
            case .unchanged, .renewed, .approvedAgain: return true
            case .changed, .refused: return false
            }
        }
    }

    /// What a connection of the account came to.
    public struct Report: Sendable, Equatable {
        public var certificate: Result
        /// The HTTP status of the files root read with the stored credentials (207: the account
        /// works); nil when the certificate stopped the check before any request.
        public var filesStatus: Int?

        /// The certificate acceptable and the files root opened.
        public var isWorking: Bool { certificate.isAcceptable && filesStatus == 207 }
        /// The server refused the stored credentials: the account needs a new login.
        public var needsLogin: Bool { filesStatus == 401 || filesStatus == 403 }

        public init(certificate: Result, filesStatus: Int?) {
            self.certificate = certificate
            self.filesStatus = filesStatus
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

    /// The certificate alone: one TLS handshake, no request, no credential.
    public func check(_ account: Account) async throws -> Result {
        try await judge(account).result
    }

    /// The certificate judged (a changed one shown to the user and approved again, when there is
    /// a user to ask), then the user's files root read with the stored credentials. Nothing is
    /// sent unless the certificate is acceptable.
    public func connect(_ account: Account, secrets: any SecretStore, interaction: (any AccountSetupInteraction)?) async throws -> Report {
        let judged = try await judge(account)
        var result = judged.result
        if case .changed = result, let interaction, let leaf = judged.chain.first {
            await interaction.review(judged.evaluation, chain: judged.chain, endpoint: judged.endpoint)
            guard await interaction.approveCertificate(judged.evaluation, chain: judged.chain, endpoint: judged.endpoint) else {
                return Report(certificate: result, filesStatus: nil)
            }
            if !judged.evaluation.verdict.isTrusted {
                try approvals.approve(leaf, host: judged.endpoint.host, port: judged.endpoint.port, note: "approved again for \(account.secretAccount)")
            }
            try accounts.replaceReviewedChain(id: account.id, with: AccountSetup.pem(judged.chain) ?? "",
                                              because: "reviewed again and approved by the user: \(leaf.sha256Fingerprint)")
            result = .approvedAgain
        }
        guard result.isAcceptable else { return Report(certificate: result, filesStatus: nil) }
        guard let authorization = try Self.authorization(for: account, secrets: secrets) else {
            return Report(certificate: result, filesStatus: 401)
        }
        let client = try AccountSetup.client(for: judged.endpoint, evaluator: evaluator, approvals: approvals, options: options,
                                              reviewed: judged.chain.first, logger: logger)
        let answer = try await client.send(HTTPRequest(method: "PROPFIND", url: "\(account.server)/\(options.paths.webDAV)/\(AccountSetup.pathComponent(account.user))/",
                                                       headers: [(name: "Authorization", value: authorization), (name: "Depth", value: "0")]))
        if let redirect = answer.redirect { throw AccountSetup.redirectError(redirect) }
        return Report(certificate: result, filesStatus: answer.status)
    }

    /// The `Authorization` header from the account's secret in the keyring; nil when it is gone.
    static func authorization(for account: Account, secrets: any SecretStore) throws -> String? {
        if account.method == "com.owncloud.basicauth" {
            return try secrets.secret(for: SecretKey(account: account.secretAccount, kind: .password))?
                .withValue { "Basic " + Data("\(account.user):\($0)".utf8).base64EncodedString() }
        }
        return try secrets.secret(for: SecretKey(account: account.secretAccount, kind: .accessToken))?.withValue { "Bearer \($0)" }
    }

    func judge(_ account: Account) async throws -> (result: Result, chain: [Certificate], evaluation: TrustEvaluation, endpoint: Endpoint) {
        let endpoint = try Endpoint(url: account.server)
        let handshake = try await TLSProbe(timeout: options.timeout, logger: logger, resolve: options.resolve).handshake(with: endpoint)
        let chain = handshake.chain
        let evaluation = options.requirements.apply(to: evaluator.evaluate(chain, for: endpoint.peerName), handshake: handshake, endpoint: endpoint)
        func done(_ result: Result) -> (Result, [Certificate], TrustEvaluation, Endpoint) { (result, chain, evaluation, endpoint) }

        let refusals = ApprovalRule.refusals(evaluation, sent: chain)
        if !refusals.isEmpty { return done(.refused(reasons: refusals.map(\.message))) }
        guard let leaf = chain.first else { return done(.refused(reasons: ["\(endpoint) sent no certificate."])) }
        let approvedLeaves = try approvals.approvedLeaves(host: endpoint.host, port: endpoint.port)
            .union(options.preApproved.fingerprints(for: endpoint))
        let passed = evaluation.verdict.isTrusted || approvedLeaves.contains(leaf.sha256Fingerprint)
        let stored = (try? account.reviewedChainPEM.map { try Certificate.parsePEM($0) }) ?? nil
        guard let stored, let storedLeaf = stored.first else {
            return done(passed ? .unchanged : .changed(reason: "No reviewed chain is stored with this account, and the server's chain is neither trusted nor approved."))
        }
        let context = CertificateRuleContext(bookmark: stored, server: chain, serverPassedValidationOrIsUserAccepted: passed)
        if let extendedValidationRule, !extendedValidationRule.rule.evaluate(context) {
            return done(.changed(reason: "The extended-validation rule does not hold: \(extendedValidationRule.text)"))
        }
        if storedLeaf == leaf {
            return done(passed ? .unchanged : .changed(reason: "The reviewed certificate is no longer trusted or approved (its approval was revoked?)."))
        }
        guard let renewalRule, renewalRule.rule.evaluate(context) else {
            return done(.changed(reason: "\(endpoint) presents another certificate than the one reviewed (\(leaf.sha256Fingerprint)), and the renewal rule does not accept it: review it again."))
        }
        if !passed {
            // The user's approval of the reviewed leaf carries over to the renewal the rule
            // accepted; a renewal of a CA-trusted leaf that no CA trusts has nothing to carry.
            guard approvedLeaves.contains(storedLeaf.sha256Fingerprint) else {
                return done(.changed(reason: "The renewal rule accepts the new certificate, but it is neither trusted nor approved, and the reviewed one was trusted, not approved: review it again."))
            }
            try approvals.approve(leaf, host: endpoint.host, port: endpoint.port,
                                  note: "renewal of \(storedLeaf.sha256Fingerprint), accepted by the rule: \(renewalRule.text)")
        }
        try accounts.replaceReviewedChain(id: account.id, with: AccountSetup.pem(chain) ?? "",
                                          because: "renewed to \(leaf.sha256Fingerprint) by the rule: \(renewalRule.text)")
        return done(.renewed(rule: renewalRule.text))
    }
}
