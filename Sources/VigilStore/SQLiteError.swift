import CSQLite

/// What SQLite said when a call failed: its result code and message. Internal to the store:
/// ``VigilDatabase`` turns it into a ``StoreError`` in words.
struct SQLiteError: Error, CustomStringConvertible {
    /// The extended result code (`SQLITE_IOERR_WRITE`...); ``primaryCode`` is its low byte.
    let code: Int32
    let message: String

    var primaryCode: Int32 { code & 0xFF }

    var description: String { message }

    /// The connection's last error, for a call that returned `code`.
    init(code: Int32, connection: OpaquePointer?) {
        self.code = connection.map { sqlite3_extended_errcode($0) } ?? code
        message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
    }

    init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }
}
