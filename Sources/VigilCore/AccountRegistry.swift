import Foundation
public import VigilSecrets
public import VigilStore

/// The accounts and their secrets, changed together: an account is never saved without its
/// secrets, nor left with half of them.
public struct AccountRegistry: Sendable {
    public var accounts: Accounts
    public var secrets: any SecretStore

    public init(accounts: Accounts, secrets: any SecretStore) {
        self.accounts = accounts
        self.secrets = secrets
    }

    /// Saves `account` (audited), then its secrets; if the keyring fails, the row and every
    /// secret stored so far are removed again and the error is thrown.
    public func add(_ account: Account, secrets kept: [SecretKey.Kind: Secret]) throws {
        try accounts.add(account)
        do {
            try store(kept, of: account)
        } catch {
            _ = try? accounts.remove(id: account.id)
            for kind in kept.keys { _ = try? secrets.remove(SecretKey(account: account.secretAccount, kind: kind)) }
            throw error
        }
    }

    /// A new login of an existing account: its secrets replaced, its row updated and marked
    /// ready (audited with `reason`).
    @discardableResult
    public func replace(_ account: Account, secrets kept: [SecretKey.Kind: Secret], because reason: String) throws -> Account {
        try store(kept, of: account)
        try accounts.update(account)
        return try accounts.updateTokens(id: account.id, expiresAt: account.tokenExpiresAt, needsLogin: false, because: reason)
    }

    func store(_ kept: [SecretKey.Kind: Secret], of account: Account) throws {
        for (kind, secret) in kept.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            try secrets.store(secret, for: SecretKey(account: account.secretAccount, kind: kind))
        }
    }
}
