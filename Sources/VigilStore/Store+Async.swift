public import FoundationEssentials
import Glibc
public import VigilCertificates
import VigilThreads

// The store's calls for async code, on the database's own queue (``VigilThreads/BlockingQueue/database``):
// SQLite may wait on another process's lock, which must not hold a thread of Swift's cooperative
// pool. In an async function Swift picks these over the blocking forms, so a call without
// `await` does not compile. Each does exactly what its blocking form does.

extension VigilDatabase {
    /// Opens (or creates) and migrates the database at `path`, off the cooperative pool.
    public static func open(path: String) async throws -> VigilDatabase {
        try await BlockingQueue.database.run { try VigilDatabase(path: path) }
    }

    /// ``lookingOnly(at:)`` on the database queue.
    public static func lookingOnly(path: String) async -> VigilDatabase? {
        (try? await BlockingQueue.database.run { VigilDatabase.lookingOnly(at: path) }) ?? nil
    }

    /// The audit trail, oldest first, read on the database queue.
    public func auditTrail() async throws -> [AuditEvent] {
        try await BlockingQueue.database.run { try self.auditTrail() }
    }
}

extension Accounts {
    /// Adds `account` (a second one for the same user and server is refused), on the database queue.
    public func add(_ account: Account, pending: Bool = false, at time: Date = Date()) async throws {
        try await BlockingQueue.database.run { try self.add(account, pending: pending, at: time) }
    }

    /// Removes the account `id` and returns it, on the database queue.
    @discardableResult
    public func remove(id: String, at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.remove(id: id, at: time) }
    }

    /// Replaces the reviewed chain of account `id`, audited with `reason`, on the database queue.
    @discardableResult
    public func replaceReviewedChain(id: String, with pem: String, because reason: String, at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.replaceReviewedChain(id: id, with: pem, because: reason, at: time) }
    }

    /// Sets or (nil) removes the account's client certificate chain, audited with `reason`, on the database queue.
    @discardableResult
    public func setClientCertificate(id: String, pem: String?, because reason: String, at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.setClientCertificate(id: id, pem: pem, because: reason, at: time) }
    }

    /// Sets or (nil) removes the names of the account's access headers, audited with `reason`, on the database queue.
    @discardableResult
    public func setAccessHeaderNames(id: String, names: [String]?, because reason: String, at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.setAccessHeaderNames(id: id, names: names, because: reason, at: time) }
    }

    /// Records a token refresh or a login, or with `needsLogin` a refusal of the stored credentials; on the database queue.
    @discardableResult
    public func updateTokens(
        id: String, expiresAt: Date?, clientID: String? = nil, needsLogin: Bool, because reason: String, at time: Date = Date()
    ) async throws -> Account {
        try await BlockingQueue.database.run {
            try self.updateTokens(id: id, expiresAt: expiresAt, clientID: clientID, needsLogin: needsLogin, because: reason, at: time)
        }
    }

    /// Replaces the CA certificates the account trusts (audited), on the database queue.
    @discardableResult
    public func setTrustAnchors(id: String, pem: String?, because reason: String, at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.setTrustAnchors(id: id, pem: pem, because: reason, at: time) }
    }

    /// Marks a refresh of the account's tokens as under way, on the database queue.
    public func startRefresh(id: String, at time: Date = Date()) async throws {
        try await BlockingQueue.database.run { try self.startRefresh(id: id, at: time) }
    }

    /// Clears the mark of a refresh once the keyring's refresh token is unspent, on the database queue.
    public func endRefresh(id: String) async throws {
        try await BlockingQueue.database.run { try self.endRefresh(id: id) }
    }

    /// Writes `account`'s fields over its row (server and user unchanged), on the database queue.
    public func update(_ account: Account) async throws {
        try await BlockingQueue.database.run { try self.update(account) }
    }

    /// Records an audit event about an account that changes no row, on the database queue.
    public func record(_ kind: AuditEvent.Kind, target: String, detail: String, at time: Date = Date()) async throws {
        try await BlockingQueue.database.run { try self.record(kind, target: target, detail: detail, at: time) }
    }

    /// The accounts (not those still pending), on the database queue.
    public func list() async throws -> [Account] {
        try await BlockingQueue.database.run { try self.list() }
    }

    /// The account a user names (id, label, id prefix or `user@host`), on the database queue; throws when none or several match.
    public func resolve(_ reference: String) async throws -> Account {
        try await BlockingQueue.database.run { try self.resolve(reference) }
    }

    /// Gives account `id` the label `label` (nil removes it), on the database queue.
    @discardableResult
    public func rename(id: String, to label: String?, at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.rename(id: id, to: label, at: time) }
    }

    /// Moves account `id` to `server`, reviewed with `reviewedChainPEM`, on the database queue.
    @discardableResult
    public func move(id: String, to server: String, reviewedChainPEM: String?, needsLogin: Bool, at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.move(id: id, to: server, reviewedChainPEM: reviewedChainPEM, needsLogin: needsLogin, at: time) }
    }

    /// Records that account `id` was logged out (`removed`: the secret kinds that left the keyring), on the database queue.
    @discardableResult
    public func logOut(id: String, removed: [String], at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.logOut(id: id, removed: removed, at: time) }
    }

    /// Marks the pending account `id` complete, on the database queue.
    public func complete(id: String) async throws {
        try await BlockingQueue.database.run { try self.complete(id: id) }
    }

    /// Rows still pending since before `time`, on the database queue.
    public func pending(before time: Date) async throws -> [Account] {
        try await BlockingQueue.database.run { try self.pending(before: time) }
    }
}

extension CertificateApprovals {
    /// Approves `certificate` (the leaf) for `host`:`port`, or returns the existing approval; on the database queue.
    @discardableResult
    public func approve(_ certificate: Certificate, host: String, port: Int, note: String? = nil, at time: Date = Date()) async throws
        -> ApprovedCertificate
    {
        try await BlockingQueue.database.run { try self.approve(certificate, host: host, port: port, note: note, at: time) }
    }

    /// Revokes the active approval `id`, on the database queue.
    @discardableResult
    public func revoke(id: Int64, reason: String, at time: Date = Date()) async throws -> ApprovedCertificate {
        try await BlockingQueue.database.run { try self.revoke(id: id, reason: reason, at: time) }
    }

    /// SHA-256 fingerprints of the leaves approved and not revoked for `host`:`port`, on the database queue.
    public func approvedLeaves(host: String, port: Int) async throws -> Set<String> {
        try await BlockingQueue.database.run { try self.approvedLeaves(host: host, port: port) }
    }

    /// Every approval, oldest first (revoked ones only when asked), on the database queue.
    public func list(includingRevoked: Bool = false) async throws -> [ApprovedCertificate] {
        try await BlockingQueue.database.run { try self.list(includingRevoked: includingRevoked) }
    }
}
