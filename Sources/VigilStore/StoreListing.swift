import Foundation
import GRDB

// Listing many rows without building an array or decoding through Codable: rows are read by
// column index from a cursor and handed over one at a time (`certificates list` and `audit` of
// 100,000 rows). The records are the same values `list()` and `auditTrail()` return.

extension CertificateApprovals {
    /// Every approval in id order (active ones only unless `includingRevoked`), one at a time;
    /// the certificate's DER is not read (`der` is nil).
    public func forEach(includingRevoked: Bool = false, _ body: (ApprovedCertificate) throws -> Void) throws {
        let sql =
            "SELECT id, host, port, sha256, spkiSHA256, subject, issuer, notAfter, approvedAt, note, revokedAt, revocationReason "
            + "FROM approved_certificate" + (includingRevoked ? "" : " WHERE revokedAt IS NULL") + " ORDER BY id"
        try read { db in
            let rows = try Row.fetchCursor(db, sql: sql)
            while let row = try rows.next() {
                try body(
                    ApprovedCertificate(
                        id: row[0], host: row[1], port: row[2], sha256: row[3], spkiSHA256: row[4], subject: row[5],
                        issuer: row[6], notAfter: row[7], approvedAt: row[8], note: row[9], revokedAt: row[10],
                        revocationReason: row[11], der: nil))
            }
        }
    }
}

extension VigilDatabase {
    /// The audit trail, oldest first, one event at a time.
    public func forEachAuditEvent(_ body: (AuditEvent) throws -> Void) throws {
        try read { db in
            let rows = try Row.fetchCursor(db, sql: "SELECT id, time, kind, target, detail, actor FROM audit_event ORDER BY id")
            while let row = try rows.next() {
                try body(AuditEvent(id: row[0], time: row[1], kind: AuditEvent.Kind(rawValue: row[2]), target: row[3], detail: row[4], actor: row[5]))
            }
        }
    }
}
