import CSQLite

/// A prepared statement of a ``SQLiteConnection``, finalized when it goes.
final class SQLiteStatement {
    let handle: OpaquePointer
    let connection: SQLiteConnection

    init(_ sql: String, connection: SQLiteConnection) throws {
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v2(connection.handle, sql, -1, &handle, nil)
        guard code == SQLITE_OK, let handle else { throw SQLiteError(code: code, connection: connection.handle) }
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Binds `values` to the statement's parameters, in order (the statement reset first).
    func bind(_ values: [SQLiteValue]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, index)
            case .integer(let number): code = sqlite3_bind_int64(handle, index, number)
            case .real(let number): code = sqlite3_bind_double(handle, index, number)
            case .text(let text): code = sqlite3_bind_text(handle, index, text, -1, vigil_sqlite_transient())
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), vigil_sqlite_transient()) }
            }
            guard code == SQLITE_OK else { throw SQLiteError(code: code, connection: connection.handle) }
        }
    }

    /// Steps once: true with a row to read, false when done.
    func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw SQLiteError(code: code, connection: connection.handle)
        }
    }

    /// Steps to the end, reading nothing (a statement that changes rows).
    func run() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Runs `body` on each row, read in place, and resets the statement afterwards.
    func forEachRow(_ body: (StoredRow) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        let row = StoredRow(statement: handle)
        while try step() { try body(row) }
    }
}
