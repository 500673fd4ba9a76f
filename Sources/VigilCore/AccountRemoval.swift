public import VigilSecrets
public import VigilStore

/// Removes an account: its row (audited) and every kind of secret it may hold in the keyring.
/// Shared by `vigil account remove` and `vigil simulate`.
public struct AccountRemoval: Sendable {
    /// What was removed.
    public struct Result: Sendable {
        public var account: Account
        /// The kinds of secret that were in the keyring and are gone.
        public var removedSecrets: [SecretKey.Kind]
    }

    /// Every kind of secret an account may hold.
    public static let secretKinds: [SecretKey.Kind] = [.password, .accessToken, .refreshToken, .clientSecret]

    public var accounts: Accounts
    public var secrets: any SecretStore

    public init(accounts: Accounts, secrets: any SecretStore) {
        self.accounts = accounts
        self.secrets = secrets
    }

    /// Removes the row first (so that no account is left without its secret), then the secrets.
    /// Throws ``VigilStore/StoreError`` for an unknown id, ``VigilSecrets/SecretStoreError`` when
    /// the keyring cannot remove a secret (the row is gone then; the error says so).
    public func remove(id: String) throws -> Result {
        let account = try accounts.remove(id: id)
        var removed: [SecretKey.Kind] = []
        for kind in Self.secretKinds where try secrets.remove(SecretKey(account: account.secretAccount, kind: kind)) {
            removed.append(kind)
        }
        return Result(account: account, removedSecrets: removed)
    }
}
