public import Foundation
import GRDB

/// The accounts, each change with its audit event in the same transaction.
public struct Accounts: Sendable {
    public let database: VigilDatabase

    public init(database: VigilDatabase) {
        self.database = database
    }

    /// Adds `account`; a second account for the same user on the same server is refused.
    public func add(_ account: Account) throws {
        try database.write { db in
            if try Account.filter(Column("server") == account.server && Column("user") == account.user).fetchCount(db) > 0 {
                throw StoreError(.invalid, "\(account.user) on \(account.server) is already an account.")
            }
            try account.insert(db)
            var event = AuditEvent(time: account.createdAt, kind: .accountAdded, target: account.server, detail: "\(account.user), \(account.method)")
            try event.insert(db)
        }
    }

    /// Removes the account `id` and returns it.
    @discardableResult
    public func remove(id: String, at time: Date = Date()) throws -> Account {
        try database.write { db in
            guard let account = try Account.fetchOne(db, key: id) else { throw StoreError(.notFound, "No account with id \(id).") }
            try account.delete(db)
            var event = AuditEvent(time: time, kind: .accountRemoved, target: account.server, detail: account.user)
            try event.insert(db)
            return account
        }
    }

    /// Replaces the reviewed chain of account `id` (a renewal a rule accepted), audited with why.
    @discardableResult
    public func replaceReviewedChain(id: String, with pem: String, because reason: String, at time: Date = Date()) throws -> Account {
        try database.write { db in
            guard var account = try Account.fetchOne(db, key: id) else { throw StoreError(.notFound, "No account with id \(id).") }
            account.reviewedChainPEM = pem
            try account.update(db)
            var event = AuditEvent(time: time, kind: .accountChainRenewed, target: account.server, detail: reason)
            try event.insert(db)
            return account
        }
    }

    /// Every account, oldest first.
    public func list() throws -> [Account] {
        try database.read { db in try Account.order(Column("createdAt"), Column("id")).fetchAll(db) }
    }
}
