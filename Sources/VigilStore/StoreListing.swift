import CSQLite
package import FoundationEssentials
import Glibc

// Listing many rows without building an array, decoding through Codable, or making a Swift
// String of every column: `certificates list` and `audit` of 100,000 rows read each column's
// bytes where SQLite holds them and copy them to the output (issue 14). The rows are the same
// records `list()` and `auditTrail()` return.

/// A row's columns as SQLite holds them, read in place: valid only inside the callback that
/// receives it (the bytes are SQLite's buffer for the current row).
package struct StoredRow {
    let statement: OpaquePointer

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    package func integer(_ column: Int32) -> Int64 { sqlite3_column_int64(statement, column) }

    /// The column's text as UTF-8 bytes, as stored (empty for NULL).
    package func text(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
        // sqlite3_column_text first, then sqlite3_column_bytes: the order SQLite documents.
        guard let bytes = sqlite3_column_text(statement, column) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(statement, column)))
    }

    /// A date column (nil for NULL or text that is no date; ``StoredDate``).
    package func date(_ column: Int32) -> Date? {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_NULL: return nil
        case SQLITE_INTEGER: return StoredDate.date(from: .integer(sqlite3_column_int64(statement, column)))
        case SQLITE_FLOAT: return StoredDate.date(from: .real(sqlite3_column_double(statement, column)))
        default: return StoredDate.date(from: text(column))
        }
    }

    /// The column as a Swift string (nil for NULL).
    func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : String(decoding: text(column), as: UTF8.self) }

    /// The column as a Swift string; a NULL where the schema forbids one is a damaged row.
    func string(_ column: Int32) throws -> String {
        guard let value = optionalString(column) else { throw Self.damaged(column) }
        return value
    }

    /// The date a nullable column holds: nil for NULL only; text that is no date is a damaged row
    /// (a revocation time read as "none" would show a revoked approval as active).
    func optionalDate(_ column: Int32) throws -> Date? {
        if isNull(column) { return nil }
        return try requiredDate(column)
    }

    /// The date a NOT NULL column holds; NULL or text that is no date is a damaged row.
    func requiredDate(_ column: Int32) throws -> Date {
        guard let value = date(column) else { throw Self.damaged(column) }
        return value
    }

    /// The column's bytes (nil for NULL).
    func data(_ column: Int32) -> Data? {
        guard !isNull(column) else { return nil }
        // sqlite3_column_blob first, then sqlite3_column_bytes: the order SQLite documents.
        guard let bytes = sqlite3_column_blob(statement, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, column)))
    }

    static func damaged(_ column: Int32) -> SQLiteError {
        SQLiteError(code: SQLITE_CORRUPT, message: "a row has no valid value in column \(column + 1)")
    }
}

extension CertificateApprovals {
    /// The columns of ``forEachStored(includingRevoked:_:)``'s rows.
    package enum ListedColumn {
        package static let id: Int32 = 0, host: Int32 = 1, port: Int32 = 2, sha256: Int32 = 3, spkiSHA256: Int32 = 4, subject: Int32 = 5
        package static let issuer: Int32 = 6, notAfter: Int32 = 7, approvedAt: Int32 = 8, note: Int32 = 9, revokedAt: Int32 = 10
        package static let revocationReason: Int32 = 11
    }

    /// Every approval in id order (active ones only unless `includingRevoked`), one row at a time,
    /// read in place (``ListedColumn``); the certificate's DER is not read.
    package func forEachStored(includingRevoked: Bool = false, _ body: (StoredRow) throws -> Void) throws {
        let sql =
            "SELECT id, host, port, sha256, spkiSHA256, subject, issuer, notAfter, approvedAt, note, revokedAt, revocationReason "
            + "FROM approved_certificate" + (includingRevoked ? "" : " WHERE revokedAt IS NULL") + " ORDER BY id"
        try read { db in try db.prepare(sql).forEachRow(body) }
    }
}

extension VigilDatabase {
    /// The columns of ``forEachStoredAuditEvent(_:)``'s rows.
    package enum AuditColumn {
        package static let id: Int32 = 0, time: Int32 = 1, kind: Int32 = 2, target: Int32 = 3, detail: Int32 = 4, actor: Int32 = 5
    }

    /// The audit trail, oldest first, one row at a time, read in place (``AuditColumn``).
    package func forEachStoredAuditEvent(_ body: (StoredRow) throws -> Void) throws {
        try read { db in try db.prepare("SELECT id, time, kind, target, detail, actor FROM audit_event ORDER BY id").forEachRow(body) }
    }
}
