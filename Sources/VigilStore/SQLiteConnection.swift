import CSQLite

/// One connection to a SQLite file, used by one thread at a time (``VigilDatabase`` holds it under
/// its lock): statements, transactions, the schema's migrations. SQLite's C API directly, on the
/// system library: GRDB, which Vigil used before, imports Foundation and with it ICU's 34 MB of
/// data, which the client does not otherwise need (docs/architecture.md).
final class SQLiteConnection {
    let handle: OpaquePointer

    /// Opens (creating it if needed) the file at `path`: foreign keys enforced, a lock held by
    /// another process waited for up to `busyTimeout` milliseconds.
    /// `readOnly`: the file is only read, never created or changed.
    init(path: String, busyTimeout: Int32 = 10_000, readOnly: Bool = false) throws {
        var handle: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = SQLiteError(code: code, connection: handle)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeout)
        try execute("PRAGMA foreign_keys = ON")
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs `sql` (one or more statements, no parameters).
    func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: handle) }
    }

    /// Runs one statement with `values` bound to its parameters.
    func execute(_ sql: String, _ values: [SQLiteValue]) throws {
        let statement = try SQLiteStatement(sql, connection: self)
        try statement.bind(values)
        try statement.run()
    }

    /// A prepared statement.
    func prepare(_ sql: String) throws -> SQLiteStatement { try SQLiteStatement(sql, connection: self) }

    /// The rowid of the last row inserted on this connection.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE` for a change, so that a writer waits for
    /// the lock up front), committed when it returns, rolled back when it throws.
    func transaction<T>(writing: Bool, _ body: () throws -> T) throws -> T {
        // A transaction an earlier failure left open (its ROLLBACK failed too) is ended first.
        if sqlite3_get_autocommit(handle) == 0 { try execute("ROLLBACK") }
        try execute(writing ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // A failed COMMIT or statement may already have ended the transaction.
            if sqlite3_get_autocommit(handle) == 0 { try? execute("ROLLBACK") }
            throw error
        }
    }
}
