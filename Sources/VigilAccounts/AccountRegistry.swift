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
    /// keyring fails, every secret stored so far and then the row are removed again and the error
    /// is thrown. A process killed in between, or a secret the keyring would not remove, leaves a
    /// pending row, which is no account (`Accounts.list` leaves it out) and which
    /// ``removeInterrupted(before:)`` clears with its secrets: a secret is never left in the
    /// keyring without a row that leads to it.
    public func add(_ account: Account, secrets kept: [SecretKey.Kind: Secret]) async throws {
        // An earlier setup of this very account whose secrets the keyring would not remove: said
        // as such (not "being added by another vigil"), with what to do.
        let stuck = (try? await clearInterrupted())?.left ?? []
        if stuck.contains(where: { $0.secretAccount == account.secretAccount }) {
            throw AccountSetupError(
                .keyringUnavailable,
                "An interrupted setup of \(account.user) on \(account.server) left secrets under \(account.secretAccount) that the keyring would not remove; remove them with your keyring's manager (seahorse), then try again."
            )
        }
        try await accounts.add(account, pending: true)
        var written: [SecretKey.Kind] = []
        do {
            try await store(kept, of: account, written: &written)
            try await accounts.complete(id: account.id)
        } catch {
            // What was written goes; the row goes once nothing of it is left in the keyring.
            if await removeSecrets(of: account, kinds: written).isEmpty { _ = try? await accounts.remove(id: account.id) }
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
    /// secret they may have got; returns how many. A row whose secrets the keyring would not all
    /// remove stays, so that a later run tries again.
    @discardableResult
    public func removeInterrupted(before time: Date = Date().addingTimeInterval(-AccountRegistry.interruptedAfter)) async throws -> Int {
        try await clearInterrupted(before: time).removed
    }

    /// ``removeInterrupted(before:)``, and the pending rows it had to leave.
    func clearInterrupted(before time: Date = Date().addingTimeInterval(-AccountRegistry.interruptedAfter)) async throws -> (removed: Int, left: [Account]) {
        var removed = 0
        var left: [Account] = []
        for account in try await accounts.pending(before: time) {
            guard await removeSecrets(of: account, kinds: SecretKey.Kind.allKinds).isEmpty else {
                left.append(account)
                continue
            }
            _ = try await accounts.remove(id: account.id)
            removed += 1
        }
        return (removed, left)
    }

    /// Removes `account`'s secrets of `kinds`; returns those the keyring would not remove, each
    /// with why (empty when it removed, or never had, every one).
    func removeSecrets(of account: Account, kinds: [SecretKey.Kind]) async -> [String] {
        var left: [String] = []
        for kind in kinds {
            do {
                _ = try await secrets.remove(SecretKey(account: account.secretAccount, kind: kind))
            } catch let error as SecretStoreError where error.code == .invalidKey {
                // A name the keyring cannot hold: no secret was ever stored under it.
            } catch {
                left.append("\(kind.rawValue) (\(error))")
            }
        }
        return left
    }

    /// Stores `kept` (in the order of their kinds' names), appending each kind to `written` once
    /// it is in the keyring.
    func store(_ kept: [SecretKey.Kind: Secret], of account: Account, written: inout [SecretKey.Kind]) async throws {
        for (kind, secret) in kept.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            try await secrets.store(secret, for: SecretKey(account: account.secretAccount, kind: kind))
            written.append(kind)
        }
    }

    func store(_ kept: [SecretKey.Kind: Secret], of account: Account) async throws {
        var written: [SecretKey.Kind] = []
        try await store(kept, of: account, written: &written)
    }
}
