public import Foundation
import GRDB
import VigilPaths
import VigilThreads

/// Vigil's database: one SQLite file (mode 0600, in a 0700 directory), its schema made by
/// migrations. A file that is not a Vigil database is reported, never overwritten.
public final class VigilDatabase: Sendable {
    /// The database file's path.
    public let path: String
    let queue: DatabaseQueue

    /// Opens (or creates) the database at `path`, migrating it to the current schema.
    public init(path: String) throws {
        BlockingQueue.checkNotOnCooperativePool("opening the database (SQLite)")
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        do {
            // A bare file name (`--database db.sqlite`) is in the current directory: nothing to create.
            if !directory.isEmpty {
                do {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                } catch {
                    throw StoreError(.cannotOpen, "Cannot open the database \(path): its folder \(directory) does not exist and cannot be created.")
                }
            }
            if !FileManager.default.fileExists(atPath: path) {
                guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                    throw StoreError(.cannotOpen, "Cannot create the database \(path).")
                }
            }
            // SQLite gives its journal and WAL the database file's mode: the file alone decides.
            // An older file readable by others is tightened.
            PrivateFile.tighten(path)
            var configuration = Configuration()
            configuration.foreignKeysEnabled = true
            // Several vigil processes may open the database at once (a cron audit, a CLI, a
            // refresh): a writer waits for the lock instead of failing with "database is locked".
            configuration.busyMode = .timeout(10)
            queue = try DatabaseQueue(path: path, configuration: configuration)
        } catch let error as StoreError {
            throw error
        } catch let error as DatabaseError where Self.isUnreadable(error) {
            throw Self.unreadable(path)
        } catch {
            throw StoreError(.cannotOpen, "Cannot open the database \(path): \(Self.describe(error)).")
        }
        do {
            try Self.migrator.migrate(queue)
        } catch let error as DatabaseError where Self.isUnreadable(error) {
            throw Self.unreadable(path)
        } catch {
            throw StoreError(.failed, "Cannot prepare the database \(path): \(Self.describe(error)).")
        }
    }

    /// An error in words for a person: SQLite's message without the statement, a full disk named
    /// as such, a file-system error as the system says it.
    static func describe(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            switch error.resultCode {
            case .SQLITE_FULL: return "the disk is full"
            case .SQLITE_IOERR: return "SQLite could not write the file (a full disk or a file-size limit?)"
            case .SQLITE_READONLY: return "the file is read-only"
            case .SQLITE_CANTOPEN: return "the file cannot be opened"
            default: return error.message ?? "SQLite error \(error.resultCode.rawValue)"
            }
        }
        let bridged = error as NSError
        if let underlying = bridged.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return bridged.localizedDescription
    }

    static func isUnreadable(_ error: DatabaseError) -> Bool {
        [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode)
    }

    static func unreadable(_ path: String) -> StoreError {
        StoreError(.unreadable, "\(path) is not a Vigil database or is damaged; it was left as it is.")
    }

    /// The default place: `$XDG_DATA_HOME/vigil/vigil.sqlite` (or `~/.local/share/vigil/vigil.sqlite`).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        XDGDirectories(environment: environment).data + "/vigil.sqlite"
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: approved certificates and audit") { db in
            try db.create(table: ApprovedCertificate.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("host", .text).notNull()
                table.column("port", .integer).notNull()
                table.column("sha256", .text).notNull()
                table.column("spkiSHA256", .text).notNull()
                table.column("subject", .text).notNull()
                table.column("issuer", .text).notNull()
                table.column("notAfter", .text).notNull()
                table.column("approvedAt", .datetime).notNull()
                table.column("note", .text)
                table.column("revokedAt", .datetime)
                table.column("revocationReason", .text)
            }
            // At most one active approval of a certificate per host and port.
            try db.create(
                index: "approved_certificate_active", on: ApprovedCertificate.databaseTableName,
                columns: ["host", "port", "sha256"], options: .unique, condition: Column("revokedAt") == nil)
            try db.create(table: AuditEvent.databaseTableName) { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("time", .datetime).notNull()
                table.column("kind", .text).notNull()
                table.column("target", .text).notNull()
                table.column("detail", .text).notNull()
            }
        }
        migrator.registerMigration("v2: accounts") { db in
            try db.create(table: Account.databaseTableName) { table in
                table.primaryKey("id", .text)
                table.column("server", .text).notNull()
                table.column("user", .text).notNull()
                table.column("method", .text).notNull()
                table.column("createdAt", .datetime).notNull()
                table.uniqueKey(["server", "user"])
            }
        }
        migrator.registerMigration("v3: the reviewed certificate, and who acted") { db in
            try db.alter(table: ApprovedCertificate.databaseTableName) { table in table.add(column: "der", .blob) }
            try db.alter(table: AuditEvent.databaseTableName) { table in table.add(column: "actor", .text) }
        }
        migrator.registerMigration("v4: the chain an account was set up with") { db in
            try db.alter(table: Account.databaseTableName) { table in table.add(column: "reviewedChainPEM", .text) }
        }
        migrator.registerMigration("v5: tokens over time") { db in
            try db.alter(table: Account.databaseTableName) { table in
                table.add(column: "clientID", .text)
                table.add(column: "tokenEndpoint", .text)
                table.add(column: "revocationEndpoint", .text)
                table.add(column: "tokenExpiresAt", .datetime)
                table.add(column: "needsLogin", .boolean).notNull().defaults(to: false)
            }
        }
        migrator.registerMigration("v6: accounts pending until their secrets are kept") { db in
            try db.alter(table: Account.databaseTableName) { table in table.add(column: "pendingSince", .datetime) }
        }
        migrator.registerMigration("v7: account labels") { db in
            try db.alter(table: Account.databaseTableName) { table in table.add(column: "label", .text) }
            try db.create(index: "account_label", on: Account.databaseTableName, columns: ["label"], unique: true)
        }
        migrator.registerMigration("v8: the identity an OpenID Connect account logs in as") { db in
            try db.alter(table: Account.databaseTableName) { table in
                table.add(column: "issuer", .text)
                table.add(column: "subject", .text)
            }
        }
        migrator.registerMigration("v9: an account's client certificate") { db in
            try db.alter(table: Account.databaseTableName) { table in table.add(column: "clientCertificatePEM", .text) }
        }
        migrator.registerMigration("v10: an account's access headers") { db in
            try db.alter(table: Account.databaseTableName) { table in table.add(column: "accessHeaderNames", .text) }
        }
        return migrator
    }

    /// The audit trail of approvals, revocations and accounts, oldest first.
    public func auditTrail() throws -> [AuditEvent] {
        try read { db in try AuditEvent.all.order(Column("id")).fetchValues(db) }
    }

    /// A change in one transaction; errors other than ``StoreError`` become one.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        // SQLite waits on other processes' locks: never on the pool's threads.
        BlockingQueue.checkNotOnCooperativePool("a database write (SQLite)")
        do { return try queue.write(body) } catch let error as StoreError { throw error } catch {
            throw StoreError(.failed, "The database \(path) refused a change, and nothing of it was kept: \(Self.describe(error)).")
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws -> T {
        BlockingQueue.checkNotOnCooperativePool("a database read (SQLite)")
        do { return try queue.read(body) } catch let error as StoreError { throw error } catch {
            throw StoreError(.failed, "The database \(path) could not be read: \(Self.describe(error)).")
        }
    }
}
