public import FoundationEssentials
import Glibc
public import VigilSecrets
public import VigilStore

/// The accounts and their secrets, changed together: an account is never saved without its
/// secrets, nor left with half of them.
public struct AccountRegistry: Sendable {
    /// The account rows.
    public var accounts: Accounts
    /// The keyring holding each account's secrets.
    public var secrets: any SecretStore

    /// A registry over these accounts and this keyring.
    public init(accounts: Accounts, secrets: any SecretStore) {
        self.accounts = accounts
        self.secrets = secrets
    }

    /// How long a pending row may be another process's setup in progress.
    public static let interruptedAfter: TimeInterval = 60

    /// Saves `account` (audited) as pending, then its secrets, then marks it complete; if the
    /// keyring fails, the row and every secret stored so far are removed again and the error is
    /// thrown. A process killed in between leaves a pending row, which is no account
    /// (`Accounts.list` leaves it out) and which ``removeInterrupted(before:)`` clears with its
    /// secrets.
    public func add(_ account: Account, secrets kept: [SecretKey.Kind: Secret]) async throws {
        _ = try? await removeInterrupted()
        try await accounts.add(account, pending: true)
        do {
            try await store(kept, of: account)
            try await accounts.complete(id: account.id)
        } catch {
            _ = try? await accounts.remove(id: account.id)
            for kind in kept.keys { _ = try? await secrets.remove(SecretKey(account: account.secretAccount, kind: kind)) }
            throw error
        }
    }

    /// A new login of an existing account: its secrets replaced, its row updated and marked
    /// ready (audited with `reason`).
    @discardableResult
    public func replace(_ account: Account, secrets kept: [SecretKey.Kind: Secret], because reason: String) async throws -> Account {
        try await store(kept, of: account)
        try await accounts.update(account)
        return try await accounts.updateTokens(id: account.id, expiresAt: account.tokenExpiresAt, needsLogin: false, because: reason)
    }

    /// Removes the rows of setups interrupted before `time` (a minute ago by default) and every
    /// secret they may have got; returns how many.
    @discardableResult
    public func removeInterrupted(before time: Date = Date().addingTimeInterval(-AccountRegistry.interruptedAfter)) async throws -> Int {
        let interrupted = try await accounts.pending(before: time)
        for account in interrupted {
            for kind in SecretKey.Kind.allKinds { _ = try? await secrets.remove(SecretKey(account: account.secretAccount, kind: kind)) }
            _ = try await accounts.remove(id: account.id)
        }
        return interrupted.count
    }

    func store(_ kept: [SecretKey.Kind: Secret], of account: Account) async throws {
        for (kind, secret) in kept.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            try await secrets.store(secret, for: SecretKey(account: account.secretAccount, kind: kind))
        }
    }
}
