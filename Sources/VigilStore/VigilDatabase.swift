import CSQLite
public import FoundationEssentials
import Glibc
import Synchronization
import VigilPaths
import VigilThreads

/// Vigil's database: one SQLite file (mode 0600, in a 0700 directory), its schema made by
/// migrations. A file that is not a Vigil database is reported, never overwritten.
public final class VigilDatabase: Sendable {
    /// The database file's path.
    public let path: String
    /// The one connection, used by one caller at a time (SQLite's connection is not to be shared
    /// between threads at once).
    private let connection: Mutex<SendableConnection>

    /// Opens (or creates) the database at `path`, migrating it to the current schema.
    public init(path: String) throws {
        BlockingQueue.checkNotOnCooperativePool("opening the database (SQLite)")
        self.path = path
        let directory = PathName.directory(of: path)
        // A bare file name (`--database db.sqlite`) is in the current directory: nothing to create.
        if !directory.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError(.cannotOpen, "Cannot open the database \(path): its folder \(directory) does not exist and cannot be created.")
            }
        }
        if access(path, F_OK) != 0 {
            // Created here, mode 0600, never through a symbolic link: one that points nowhere is
            // refused (SQLite would create its target with the umask's mode).
            let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 {
                Glibc.close(fd)
            } else if errno == EEXIST {
                var link = stat()
                if lstat(path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK {
                    throw StoreError(.cannotOpen, "Cannot open the database \(path): it is a symbolic link to a file that does not exist.")
                }
            } else {
                throw StoreError(.cannotOpen, "Cannot create the database \(path): \(String(cString: strerror(errno))).")
            }
        }
        // SQLite gives its journal and WAL the database file's mode: the file alone decides.
        // An older file readable by others is tightened.
        PrivateFile.tighten(path)
        let connection: SQLiteConnection
        do {
            // Several vigil processes may open the database at once (a cron audit, a CLI, a
            // refresh): a writer waits for the lock (10 s) instead of failing with "database is locked".
            connection = try SQLiteConnection(path: path, busyTimeout: 10_000)
        } catch let error as SQLiteError where Self.isUnreadable(error) {
            throw Self.unreadable(path)
        } catch {
            throw StoreError(.cannotOpen, "Cannot open the database \(path): \(Self.describe(error)).")
        }
        do {
            try SchemaMigrations.migrate(connection)
        } catch let error as SQLiteError where Self.isUnreadable(error) {
            throw Self.unreadable(path)
        } catch {
            throw StoreError(.failed, "Cannot prepare the database \(path): \(Self.describe(error)).")
        }
        self.connection = Mutex(SendableConnection(connection))
    }

    /// A database that is only looked at (shell completion, `inspect` naming an approval): opened
    /// read-only, never created, migrated or tightened, a lock waited for 100 ms at most; nil
    /// when there is no file, it is not a Vigil database of the current schema, or it is busy.
    public static func lookingOnly(at path: String) -> VigilDatabase? {
        guard access(path, R_OK) == 0, let connection = try? SQLiteConnection(path: path, busyTimeout: 100, readOnly: true),
            let applied = try? SchemaMigrations.applied(connection), applied.isSuperset(of: SchemaMigrations.all.map(\.identifier))
        else { return nil }
        return VigilDatabase(path: path, connection: connection)
    }

    private init(path: String, connection: SQLiteConnection) {
        self.path = path
        self.connection = Mutex(SendableConnection(connection))
    }

    /// An error in words for a person: SQLite's message without the statement, a full disk named
    /// as such.
    static func describe(_ error: any Error) -> String {
        if let error = error as? SQLiteError {
            switch error.primaryCode {
            case SQLITE_FULL: return "the disk is full"
            case SQLITE_IOERR: return "SQLite could not write the file (a full disk or a file-size limit?)"
            case SQLITE_READONLY: return "the file is read-only"
            case SQLITE_CANTOPEN: return "the file cannot be opened"
            default: return error.message
            }
        }
        return String(describing: error)
    }

    static func isUnreadable(_ error: SQLiteError) -> Bool {
        error.primaryCode == SQLITE_NOTADB || error.primaryCode == SQLITE_CORRUPT
    }

    static func unreadable(_ path: String) -> StoreError {
        StoreError(.unreadable, "\(path) is not a Vigil database or is damaged; it was left as it is.")
    }

    /// The default place: `$XDG_DATA_HOME/vigil/vigil.sqlite` (or `~/.local/share/vigil/vigil.sqlite`).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        XDGDirectories(environment: environment).data + "/vigil.sqlite"
    }

    /// The audit trail of approvals, revocations and accounts, oldest first.
    public func auditTrail() throws -> [AuditEvent] {
        try read { db in try AuditEvent.fetchAll(db, orderBy: "id") }
    }

    /// A change in one transaction; errors other than ``StoreError`` become one.
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        // SQLite waits on other processes' locks: never on the pool's threads.
        BlockingQueue.checkNotOnCooperativePool("a database write (SQLite)")
        do { return try withConnection { db in try db.transaction(writing: true) { try body(db) } } } catch let error as StoreError { throw error } catch {
            throw StoreError(.failed, "The database \(path) refused a change, and nothing of it was kept: \(Self.describe(error)).")
        }
    }

    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        BlockingQueue.checkNotOnCooperativePool("a database read (SQLite)")
        do { return try withConnection { db in try db.transaction(writing: false) { try body(db) } } } catch let error as StoreError { throw error } catch {
            throw StoreError(.failed, "The database \(path) could not be read: \(Self.describe(error)).")
        }
    }

    private func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try connection.withLock { held in try body(held.connection) }
    }
}

/// The connection as the lock holds it: it moves between threads (the main one, the database
/// queue) but is used by one at a time, under the lock.
private struct SendableConnection: @unchecked Sendable {
    let connection: SQLiteConnection
    init(_ connection: SQLiteConnection) { self.connection = connection }
}
