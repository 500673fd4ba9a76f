public import FoundationEssentials
import Glibc
public import Logging
public import VigilAuth
public import VigilCertificates
public import VigilHTTP
public import VigilRules
public import VigilSecrets
public import VigilStore
import VigilText

/// Checks an existing account's server against the chain the user reviewed, the way every later
/// connection must (the ownCloud SDK's bookmark certificate): what no approval can make safe is
/// refused; the same leaf passes; a changed leaf passes when the extended-validation rule holds
/// or, when that fails or is unset, when the renewal rule accepts it (the ownCloud SDK's order),
/// and then the stored chain is replaced and the change audited with the rule's text; anything
/// else must be reviewed again, never accepted silently. ``connect(_:secrets:interaction:)`` then reads the user's files root with the stored
/// credentials, through a client whose policy accepts exactly what was judged.
public struct AccountCheck: Sendable {
    /// The certificate's verdict for an existing account.
    public enum Result: Sendable, Equatable {
        /// The server presents the reviewed leaf.
        case unchanged
        /// The leaf changed and the extended-validation or the renewal rule accepted it; the stored chain was replaced.
        case renewed(rule: String)
        /// The leaf changed and no rule accepts it: review again.
        case changed(reason: String)
        /// The leaf changed, the user reviewed it again and approved it; the stored chain was replaced.
        case approvedAgain
        /// What no approval can make safe (a weak key, a TLS version below the minimum, a pin
        /// mismatch, a revoked certificate, ...), each with its code.
        case refused(reasons: [ApprovalRule.Refusal])

        /// True for ``unchanged``, ``renewed(rule:)`` and ``approvedAgain``: the connection may go on.
        public var isAcceptable: Bool {
            switch self {
            case .unchanged, .renewed, .approvedAgain: return true
            case .changed, .refused: return false
            }
        }
    }

    /// What a connection of the account came to.
    public struct Report: Sendable, Equatable {
        /// The verdict on the certificate the server presented.
        public var certificate: Result
        /// The HTTP status of the files root read with the stored credentials (207: the account
        /// works); nil when the certificate stopped the check before any request.
        public var filesStatus: Int?
        /// The status of the download of the root's first file (200 or 206: it works); nil when
        /// nothing was downloaded (no listing, or no file in it).
        public var downloadStatus: Int?
        /// The path downloaded.
        public var downloaded: String?
        /// The files root redirected (never followed): a move, or a temporary redirect.
        public var moved: ServerMove?

        /// The certificate acceptable, the files root listed and its first file downloaded.
        public var isWorking: Bool { certificate.isAcceptable && filesStatus == 207 && downloadFailed == false }
        /// The root listed, but a file could not be downloaded.
        public var downloadFailed: Bool { FilesProbe.downloadFailed(downloadStatus) }
        /// The server refused the stored credentials: the account needs a new login.
        public var needsLogin: Bool { filesStatus == 401 || filesStatus == 403 }

        /// A report with no download (``downloadStatus`` and ``downloaded`` nil).
        public init(certificate: Result, filesStatus: Int?) {
            self.certificate = certificate
            self.filesStatus = filesStatus
        }
    }

    /// Judges the chain the server presents.
    public var evaluator: TrustEvaluator
    /// The stored certificate approvals (a changed leaf approved again is added here).
    public var approvals: CertificateApprovals
    /// The stored accounts (their reviewed chains are replaced here on a renewal).
    public var accounts: Accounts
    /// The setup options the connections use (paths, retries, OAuth2 client).
    public var options: AccountSetup.Options
    /// `connection.renewed-certificate-acceptance-rule` (parsed); nil: a changed leaf is never accepted.
    public var renewalRule: (text: String, rule: CertificateRule)?
    /// `connection.certificate-extended-validation-rule` (parsed); nil: none.
    public var extendedValidationRule: (text: String, rule: CertificateRule)?
    /// The methods an account may use (``VigilAuth/AuthenticationMethods/standard``).
    public var methods = AuthenticationMethods.standard
    /// Where token refreshes take their per-account lock (``AccountTokens``); nil: no lock.
    public var lockDirectory: String?
    /// Where the accounts' client certificate keys are read from (the keyring); nil: ``connect``'s
    /// store, and no client certificate anywhere else.
    public var clientKeys: (any SecretStore)?
    /// Where the check logs.
    public var logger: Logger

    /// A check with the standard methods, no lock directory and no separate store of client keys.
    public init(
        evaluator: TrustEvaluator, approvals: CertificateApprovals, accounts: Accounts, options: AccountSetup.Options,
        renewalRule: (text: String, rule: CertificateRule)?, extendedValidationRule: (text: String, rule: CertificateRule)?,
        logger: Logger = Logger(label: "vigil.check")
    ) {
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
        var check = self
        if check.clientKeys == nil { check.clientKeys = secrets }
        return try await check.connectWithKeys(account, secrets: secrets, interaction: interaction)
    }

    /// The account's client certificate (mutual TLS): its chain from the account, its key from
    /// the keyring; nil when it has none. One that expired, or lost its key, stops the account.
    public static func identity(of account: Account, keys: any SecretStore, at time: Date = Date()) async throws -> ClientIdentity? {
        guard let pem = account.clientCertificatePEM else { return nil }
        let chain = try Certificate.parsePEM(pem)
        guard !chain.isEmpty, let key = try await keys.secret(for: SecretKey(account: account.secretAccount, kind: .clientKey)) else {
            throw AccountSetupError(
                .clientCertificate,
                "The account's client certificate has no key in the keyring; give it again with \(SuggestedCommand.line(["vigil", "account", "edit", account.id, "--client-certificate", "FILE"]))."
            )
        }
        let identity: ClientIdentity
        do {
            identity = try key.withValue { try ClientIdentity.restored(chain: chain, chainPEM: pem, storedKey: $0) }
        } catch let error as ClientIdentityError {
            throw AccountSetupError(.clientCertificate, "The account's client key cannot be used: \(error.reason)")
        }
        let refusals = identity.refusals(at: time)
        if !refusals.isEmpty {
            throw AccountSetupError(
                .clientCertificate,
                "The account's client certificate cannot be used: " + refusals.map(\.message).joined(separator: " ")
                    + " Give a new one with \(SuggestedCommand.line(["vigil", "account", "edit", account.id, "--client-certificate", "FILE"])).")
        }
        return identity
    }

    /// The account's access headers from the keyring; nil when it has none.
    public static func accessHeaders(of account: Account, keys: any SecretStore) async throws -> AccessHeaders? {
        guard account.accessHeaderNames != nil else { return nil }
        guard let text = try await keys.secret(for: SecretKey(account: account.secretAccount, kind: .accessHeaders)) else {
            throw AccountSetupError(
                .configuration,
                "The account's access headers are not in the keyring; give them again with \(SuggestedCommand.line(["vigil", "account", "edit", account.id, "--access-headers-file", "FILE"]))."
            )
        }
        return try text.withValue { try AccessHeaders.parse($0) }
    }

    func connectWithKeys(_ account: Account, secrets: any SecretStore, interaction: (any AccountSetupInteraction)?) async throws -> Report {
        // The keyring is read beside the handshake, on its own thread: a password stays in this
        // process, and is sent only once the certificate is judged acceptable (for token methods
        // only the keyring's session is opened here; the tokens are read after the verdict).
        let method = methods.method(AuthenticationMethodIdentifier(rawValue: account.method))
        let kinds = method.map { $0.usesTokens ? [] : $0.secretKinds } ?? []
        async let read = Self.read(kinds, of: account.secretAccount, from: secrets)
        let (result, client) = try await reviewedClient(for: account, interaction: interaction)
        let stored = await read
        guard let client else { return Report(certificate: result, filesStatus: nil) }
        let files = "\(account.server)/\(options.paths.webDAV)/\(AccountSetup.pathComponent(account.user))/"
        // The listing and the download on one connection (judged again before the download).
        var probe = FilesProbe(client: client.keepingConnections())
        probe.returnsRedirects = true
        // A load balancer's blip (a 404 storm, a 502 while a backend restarts: the statuses setup
        // retries, connection.validator-flags) is waited out as at setup, within the same delays.
        let retried = options.retriedStatuses
        let blip: (HTTPResponse) -> Bool = { retried.contains($0.status) }
        guard let method else {
            throw AccountSetupError(.unsupportedMethod, "The account's method \(account.method) is not one Vigil can use.")
        }
        if !method.usesTokens {
            // Logged out (or refused before): nothing to send, and no server refused anything now.
            if account.needsLogin {
                throw AccountSetupError(
                    .wrongCredentials,
                    "\(account.user) on \(account.server) is logged out (or its credentials were refused before): \(SuggestedCommand.line(["vigil", "account", "login", account.id])). Nothing was sent."
                )
            }
            // No credential from the keyring is no request at all: never a server's 401. A locked
            // keyring (a session nobody unlocked, as a timer's) throws SecretStoreError.locked.
            let secrets: [SecretKey.Kind: Secret]
            do { secrets = try stored.get() } catch let error as SecretStoreError {
                // Read before any request: nothing went out.
                throw AccountSetupError(
                    .keyringUnavailable, "\(error.situation) (\(error.reason)). Nothing was sent. " + (error.advice ?? ""))
            }
            guard let header = method.authorization(user: account.user, secrets: secrets) else {
                throw AccountSetupError(
                    .keyringUnavailable,
                    "The keyring holds no password for \(account.user) on \(account.server) (removed outside Vigil?). Nothing was sent. Log in again: \(SuggestedCommand.line(["vigil", "account", "login", account.id]))."
                )
            }
            return await report(
                result, try await probe.run(rootURL: files, authorization: header, retryingAfter: options.retryDelays, when: blip), account: account)
        }
        // Token methods: refreshed ahead of expiry, and once more after a 401.
        var tokens = AccountTokens(accounts: accounts, secrets: secrets, client: client, lockDirectory: lockDirectory, logger: logger)
        tokens.clientSecret = options.oauth2ClientSecret(for: account)
        tokens.lifetimeOverride = options.tokenLifetimeOverride
        let current = try await accounts.list().first { $0.id == account.id } ?? account
        let token = try await tokens.accessToken(for: current)
        var outcome = try await token.withValue {
            try await probe.run(rootURL: files, authorization: "Bearer \($0)", retryingAfter: options.retryDelays, when: blip)
        }
        if outcome.listStatus == 401 {
            let again = try await tokens.accessToken(for: try accounts.list().first { $0.id == account.id } ?? current, refusedToken: token)
            outcome = try await again.withValue {
                try await probe.run(rootURL: files, authorization: "Bearer \($0)", retryingAfter: options.retryDelays, when: blip)
            }
        }
        return await report(result, outcome, account: account)
    }

    /// The secrets of `kinds` for `account` from the keyring (on its queue), or, with no kinds,
    /// only the keyring made ready: what a failure was is kept for after the verdict.
    static func read(_ kinds: [SecretKey.Kind], of account: String, from secrets: any SecretStore) async -> Swift.Result<[SecretKey.Kind: Secret], any Error> {
        guard !kinds.isEmpty else {
            await secrets.warmUp()
            return .success([:])
        }
        do {
            var stored: [SecretKey.Kind: Secret] = [:]
            for kind in kinds { stored[kind] = try await secrets.secret(for: SecretKey(account: account, kind: kind)) }
            return .success(stored)
        } catch {
            return .failure(error)
        }
    }

    /// The certificate judged, a changed one shown to the user and approved again when there is a
    /// user to ask (the approval and the new chain stored, the old leaf's approval retired), and
    /// a client that accepts only the leaf just judged; no client when the result is not acceptable.
    public func reviewedClient(for account: Account, interaction: (any AccountSetupInteraction)?) async throws -> (Result, HTTPClient?) {
        let judged = try await judge(account)
        var result = judged.result
        if case .changed = result, let interaction, let leaf = judged.chain.first {
            await interaction.review(judged.evaluation, chain: judged.chain, endpoint: judged.endpoint)
            guard await interaction.approveCertificate(judged.evaluation, chain: judged.chain, endpoint: judged.endpoint) else {
                return (result, nil)
            }
            if !judged.evaluation.verdict.isTrusted {
                try await approvals.approve(leaf, host: judged.endpoint.host, port: judged.endpoint.port, note: "approved again for \(account.secretAccount)")
            }
            // A damaged stored chain has no leaf to retire: the new one replaces it.
            if let storedLeaf = (try? account.reviewedChain())??.first {
                try await retire(storedLeaf, at: judged.endpoint, replacedBy: leaf)
            }
            try await accounts.replaceReviewedChain(
                id: account.id, with: AccountSetup.pem(judged.chain) ?? "",
                because: "reviewed again and approved by the user: \(leaf.sha256Fingerprint)")
            result = .approvedAgain
        }
        guard result.isAcceptable else { return (result, nil) }
        var options = self.options
        if let clientKeys {
            options.clientIdentity = try await Self.identity(of: account, keys: clientKeys)
            options.accessHeaders = try await Self.accessHeaders(of: account, keys: clientKeys)
        } else {
            // Only this account's own identity and headers, and only from the keyring: none that
            // the options carried for another origin.
            options.clientIdentity = nil
            options.accessHeaders = nil
        }
        options.credentialsOrigin = judged.endpoint
        return (
            result,
            try await AccountSetup.client(
                for: judged.endpoint, evaluator: try self.evaluator(for: account), approvals: approvals, options: options,
                reviewed: judged.chain.first, provider: Self.provider(of: account, server: judged.endpoint), logger: logger)
        )
    }

    /// The login provider of an account whose tokens come from another host (its token
    /// endpoint's origin): reached with its own approvals, never the server's.
    static func provider(of account: Account, server: Endpoint) -> (endpoint: Endpoint, reviewed: Certificate?)? {
        guard let url = account.tokenEndpoint, let endpoint = try? Endpoint(url: url), endpoint != server else { return nil }
        return (endpoint, nil)
    }

    /// The files probe's outcome in a report.
    func report(_ certificate: Result, _ outcome: FilesProbe.Outcome, account: Account) async -> Report {
        var report = Report(certificate: certificate, filesStatus: outcome.listStatus)
        report.downloadStatus = outcome.downloadStatus
        report.downloaded = outcome.downloaded
        if let redirect = outcome.listing.redirect { report.moved = await move(redirect, of: account) }
        return report
    }

    /// A redirect of the files root, never followed: a permanent one to the account's files under
    /// another https server gets that server's certificate reviewed (a handshake; nothing sent).
    func move(_ redirect: Redirect, of account: Account) async -> ServerMove {
        let tail = "/\(options.paths.webDAV)/\(AccountSetup.pathComponent(account.user))/"
        var move = ServerMove(
            status: redirect.status, location: redirect.location,
            newServer: redirect.isDowngrade || redirect.carriesUserInformation
                ? nil : ServerMove.newServer(location: redirect.location, tail: tail, old: account.server))
        guard move.isMove, let server = move.newServer, let endpoint = try? Endpoint(url: server) else { return move }
        do {
            let handshake = try await TLSProbe(timeout: options.timeout, logger: logger, resolve: options.resolve, proxy: options.proxy).handshake(
                with: endpoint)
            let evaluation = await ConnectionJudge(evaluator: try self.evaluator(for: account), requirements: options.requirements).verdict(
                for: handshake, endpoint: endpoint)
            let summary =
                evaluation.verdict.isTrusted
                ? "trusted"
                : "not trusted (" + evaluation.verdict.reasons.map(\.message).joined(separator: " ") + "): the move will ask you to approve it"
            move.review = ServerMove.Review(trusted: evaluation.verdict.isTrusted, summary: summary, sha256: handshake.chain.first?.sha256Fingerprint ?? "?")
        } catch {
            move.reviewProblem = "\(error)"
        }
        return move
    }
}
