public import Foundation
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

    public func auditTrail() async throws -> [AuditEvent] {
        try await BlockingQueue.database.run { try self.auditTrail() }
    }
}

extension Accounts {
    public func add(_ account: Account, pending: Bool = false, at time: Date = Date()) async throws {
        try await BlockingQueue.database.run { try self.add(account, pending: pending, at: time) }
    }

    @discardableResult
    public func remove(id: String, at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.remove(id: id, at: time) }
    }

    @discardableResult
    public func replaceReviewedChain(id: String, with pem: String, because reason: String, at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.replaceReviewedChain(id: id, with: pem, because: reason, at: time) }
    }

    @discardableResult
    public func setClientCertificate(id: String, pem: String?, because reason: String, at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.setClientCertificate(id: id, pem: pem, because: reason, at: time) }
    }

    @discardableResult
    public func setAccessHeaderNames(id: String, names: [String]?, because reason: String, at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.setAccessHeaderNames(id: id, names: names, because: reason, at: time) }
    }

    @discardableResult
    public func updateTokens(
        id: String, expiresAt: Date?, clientID: String? = nil, needsLogin: Bool, because reason: String, at time: Date = Date()
    ) async throws -> Account {
        try await BlockingQueue.database.run {
            try self.updateTokens(id: id, expiresAt: expiresAt, clientID: clientID, needsLogin: needsLogin, because: reason, at: time)
        }
    }

    public func update(_ account: Account) async throws {
        try await BlockingQueue.database.run { try self.update(account) }
    }

    public func record(_ kind: AuditEvent.Kind, target: String, detail: String, at time: Date = Date()) async throws {
        try await BlockingQueue.database.run { try self.record(kind, target: target, detail: detail, at: time) }
    }

    public func list() async throws -> [Account] {
        try await BlockingQueue.database.run { try self.list() }
    }

    public func resolve(_ reference: String) async throws -> Account {
        try await BlockingQueue.database.run { try self.resolve(reference) }
    }

    @discardableResult
    public func rename(id: String, to label: String?, at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.rename(id: id, to: label, at: time) }
    }

    @discardableResult
    public func move(id: String, to server: String, reviewedChainPEM: String?, needsLogin: Bool, at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.move(id: id, to: server, reviewedChainPEM: reviewedChainPEM, needsLogin: needsLogin, at: time) }
    }

    @discardableResult
    public func logOut(id: String, removed: [String], at time: Date = Date()) async throws -> Account {
        try await BlockingQueue.database.run { try self.logOut(id: id, removed: removed, at: time) }
    }

    public func complete(id: String) async throws {
        try await BlockingQueue.database.run { try self.complete(id: id) }
    }

    public func pending(before time: Date) async throws -> [Account] {
        try await BlockingQueue.database.run { try self.pending(before: time) }
    }
}

extension CertificateApprovals {
    @discardableResult
    public func approve(_ certificate: Certificate, host: String, port: Int, note: String? = nil, at time: Date = Date()) async throws
        -> ApprovedCertificate
    {
        try await BlockingQueue.database.run { try self.approve(certificate, host: host, port: port, note: note, at: time) }
    }

    @discardableResult
    public func revoke(id: Int64, reason: String, at time: Date = Date()) async throws -> ApprovedCertificate {
        try await BlockingQueue.database.run { try self.revoke(id: id, reason: reason, at: time) }
    }

    public func approvedLeaves(host: String, port: Int) async throws -> Set<String> {
        try await BlockingQueue.database.run { try self.approvedLeaves(host: host, port: port) }
    }

    public func list(includingRevoked: Bool = false) async throws -> [ApprovedCertificate] {
        try await BlockingQueue.database.run { try self.list(includingRevoked: includingRevoked) }
    }
}
