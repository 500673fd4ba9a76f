import FoundationEssentials
import Glibc
import VigilAuth
import VigilHTTP
public import VigilSecrets
public import VigilStore
import VigilThreads

/// Removes an account: its tokens revoked at the server where it has a revocation endpoint
/// (RFC 7009), its row (audited) and every kind of secret it may hold in the keyring. Shared by
/// `vigil account remove` and `vigil simulate`.
public struct AccountRemoval: Sendable {
    /// What was removed.
    public struct Result: Sendable {
        /// The account as it was removed (or, after a logout, as it is kept).
        public var account: Account
        /// The kinds of secret that were in the keyring and are gone.
        public var removedSecrets: [SecretKey.Kind]
        /// The kinds of token the server confirmed revoked.
        public var revoked: [SecretKey.Kind] = []
        /// Why the tokens were not revoked, when they were not (removal goes on regardless).
        public var revocationProblem: String?
    }

    /// The login's secrets (a logout removes these; the client certificate's key and the access
    /// headers stay with the account until it is removed: they open the door, not the account).
    public static let secretKinds: [SecretKey.Kind] = [.password, .accessToken, .refreshToken, .clientSecret]

    /// The account rows.
    public var accounts: Accounts
    /// The keyring the account's secrets are removed from.
    public var secrets: any SecretStore

    /// A removal over these accounts and this keyring.
    public init(accounts: Accounts, secrets: any SecretStore) {
        self.accounts = accounts
        self.secrets = secrets
    }

    /// Removes the row first (so that no account is left without its secret), then the secrets.
    /// Throws ``VigilStore/StoreError`` for an unknown id, ``VigilSecrets/SecretStoreError`` when
    /// the keyring cannot remove a secret (the row is gone then; the error says so).
    public func remove(id: String) async throws -> Result {
        // Once the row is gone its secrets go too: an interrupt waits for both (Uninterruptible).
        try await Uninterruptible.run {
            let account = try await accounts.remove(id: id)
            var removed: [SecretKey.Kind] = []
            // The login's secrets and the client certificate's key: nothing of the account stays.
            for kind in Self.secretKinds + [.clientKey, .accessHeaders] {
                if try await secrets.remove(SecretKey(account: account.secretAccount, kind: kind)) { removed.append(kind) }
            }
            return Result(account: account, removedSecrets: removed)
        }
    }

    /// Revokes the account's tokens first (refresh token, then access token), but only over a
    /// connection `check` accepts as the account's own server (its certificate judged against the
    /// reviewed chain, nothing asked): a token is never sent to a server whose certificate
    /// changed. Then ``remove(id:)``. A revocation that fails is reported, never fatal.
    public func remove(id: String, revokingThrough check: AccountCheck) async throws -> Result {
        guard let account = try await accounts.list().first(where: { $0.id == id }) else { return try await remove(id: id) }
        let (revoked, problem) = await revokeTokens(of: account, through: check)
        // Interrupted (Ctrl-C) while revoking: nothing is removed, so the tokens can still be revoked.
        try Task.checkCancellation()
        var result = try await remove(id: id)
        result.revoked = revoked
        result.revocationProblem = problem
        return result
    }

    /// After an account is removed: for its server and its login provider on another host, when
    /// no other account uses that host and port (as its server or its provider), the approvals
    /// made there are revoked (they existed for that account), unless `keep`. Returns the
    /// approvals revoked.
    public func revokeApprovalsLeftOver(by account: Account, approvals: CertificateApprovals, keep: Bool) async throws -> [ApprovedCertificate] {
        guard !keep else { return [] }
        let others = try await accounts.list().filter { $0.id != account.id }
        let stillUsed = Set(others.flatMap { Self.origins(of: $0) })
        var revoked: [ApprovedCertificate] = []
        for origin in Self.origins(of: account) where !stillUsed.contains(origin) {
            for approval in try await approvals.list() where Endpoint(host: approval.host, port: approval.port).originKey == origin.key {
                guard let id = approval.id else { continue }
                await revoked.append(try approvals.revoke(id: id, reason: "its last account (\(account.user) on \(account.server)) was removed"))
            }
        }
        return revoked
    }

    /// The hosts and ports an account connects to: its server, and its login provider when that
    /// is on another host.
    static func origins(of account: Account) -> [Origin] {
        guard let server = try? Endpoint(url: account.server) else { return [] }
        var origins = [Origin(key: server.originKey)]
        if let provider = AccountCheck.provider(of: account, server: server)?.endpoint {
            origins.append(Origin(key: provider.originKey))
        }
        return origins
    }

    /// A host (lower-cased) and port.
    /// An origin by its key (``Endpoint/originKey``: one spelling of the host, the port).
    struct Origin: Hashable {
        var key: String
    }

    /// Logs account `id` out: its tokens revoked as for a removal (with `check`; nil: not
    /// contacted), every secret it holds removed from the keyring, the account kept (with its
    /// reviewed chain) and marked as needing `vigil account login`. Audited.
    public func logout(id: String, revokingThrough check: AccountCheck?) async throws -> Result {
        guard let account = try await accounts.list().first(where: { $0.id == id }) else { throw StoreError(.notFound, "No account with id \(id).") }
        var (revoked, problem): ([SecretKey.Kind], String?) = ([], nil)
        if let check { (revoked, problem) = await revokeTokens(of: account, through: check) }
        try Task.checkCancellation()
        return try await Uninterruptible.run {
            var removed: [SecretKey.Kind] = []
            for kind in Self.secretKinds where try await secrets.remove(SecretKey(account: account.secretAccount, kind: kind)) {
                removed.append(kind)
            }
            let updated = try await accounts.logOut(id: id, removed: removed.map(\.rawValue))
            return Result(account: updated, removedSecrets: removed, revoked: revoked, revocationProblem: problem)
        }
    }

    /// The account's tokens revoked at its revocation endpoint, over a connection to its own
    /// server; what was revoked, or why nothing was.
    func revokeTokens(of account: Account, through check: AccountCheck) async -> (revoked: [SecretKey.Kind], problem: String?) {
        var revoked: [SecretKey.Kind] = []
        var problem: String?
        if account.method == AuthenticationMethodIdentifier.loginFlowV2.rawValue { return await revokeAppPassword(of: account, through: check) }
        guard let endpoint = account.revocationEndpoint, let clientID = account.clientID else { return ([], nil) }
        do {
            // The account's own connection: its reviewed certificate, and its client certificate
            // and access headers (a server behind mutual TLS or an access proxy).
            let (_, reviewed) = try await check.reviewedClient(for: account, interaction: nil)
            if let client = reviewed {
                let tokens = OAuth2TokenClient(
                    client: client, clientID: clientID,
                    authentication: OAuth2ClientAuthentication.choose(secret: check.options.oauth2ClientSecret(for: account), supported: nil))
                for (kind, hint) in [(SecretKey.Kind.refreshToken, "refresh_token"), (.accessToken, "access_token")] {
                    guard let token = try await secrets.secret(for: SecretKey(account: account.secretAccount, kind: kind)) else { continue }
                    if try await tokens.revoke(token, hint: hint, at: endpoint) { revoked.append(kind) }
                }
                if !revoked.isEmpty {
                    try await accounts.record(
                        .accountTokensRevoked, target: account.server, detail: "\(account.user): " + revoked.map(\.rawValue).joined(separator: ", "))
                }
            } else {
                problem = "the server's certificate is not the one reviewed, so no token was sent to revoke"
            }
        } catch {
            problem = "the server could not be reached to revoke the tokens (\(error))"
        }
        return (revoked, problem)
    }

    /// A Login Flow v2 account's app password revoked at its server (`DELETE
    /// ocs/v2.php/core/apppassword`), over a connection `check` accepts as the account's own.
    func revokeAppPassword(of account: Account, through check: AccountCheck) async -> (revoked: [SecretKey.Kind], problem: String?) {
        do {
            guard let password = try await secrets.secret(for: SecretKey(account: account.secretAccount, kind: .password)) else { return ([], nil) }
            // The account's own connection, with its client certificate and access headers.
            guard let client = try await check.reviewedClient(for: account, interaction: nil).1 else {
                return ([], "the server's certificate is not the one reviewed, so the app password was not sent to revoke it")
            }
            guard try await LoginFlowV2(client: client, server: account.server).revoke(appPassword: password, loginName: account.user) else {
                return ([], "the server did not confirm the app password's revocation: remove it in the server's security settings")
            }
            try await accounts.record(.accountTokensRevoked, target: account.server, detail: "\(account.user): app password")
            return ([.password], nil)
        } catch {
            return ([], "the server could not be reached to revoke the app password (\(error))")
        }
    }
}
