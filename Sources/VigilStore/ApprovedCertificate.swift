public import FoundationEssentials
import Glibc

/// A certificate a user approved for one host and port after reviewing it: the leaf, by its
/// SHA-256 fingerprint, with what the user saw. A revoked approval stays, for the audit.
public struct ApprovedCertificate: Sendable, Hashable, Codable {

    /// The row id; nil until stored.
    public var id: Int64?
    /// The host the approval is for (lower-cased; an IPv6 literal without brackets).
    public var host: String
    /// The port the approval is for.
    public var port: Int
    /// SHA-256 of the leaf's DER, hex with colons (as `Certificate.sha256Fingerprint`).
    public var sha256: String
    /// SHA-256 of the leaf's public key (SubjectPublicKeyInfo), base64: survives a renewal with the same key.
    public var spkiSHA256: String
    /// The leaf's subject, as the summary shows it.
    public var subject: String
    /// The leaf's issuer, as the summary shows it.
    public var issuer: String
    /// The end of the leaf's validity, ISO 8601 UTC.
    public var notAfter: String
    /// When the user approved it.
    public var approvedAt: Date
    /// The user's note, if any.
    public var note: String?
    /// When the approval was revoked; nil while it is active.
    public var revokedAt: Date?
    /// Why the approval was revoked; nil while it is active.
    public var revocationReason: String?
    /// The certificate as reviewed (DER), for later summaries and audits; nil for approvals
    /// stored before Vigil kept certificates.
    public var der: Data?

    /// Not revoked.
    public var isActive: Bool { revokedAt == nil }
}

extension ApprovedCertificate: StoredValue {
    static var databaseTableName: String { "approved_certificate" }

    static let columns = [
        "id", "host", "port", "sha256", "spkiSHA256", "subject", "issuer", "notAfter", "approvedAt", "note", "revokedAt", "revocationReason", "der",
    ]

    init(row: StoredRow) throws {
        self.init(
            id: row.integer(0), host: try row.string(1), port: Int(row.integer(2)), sha256: try row.string(3), spkiSHA256: try row.string(4),
            subject: try row.string(5), issuer: try row.string(6), notAfter: try row.string(7), approvedAt: try row.requiredDate(8),
            note: row.optionalString(9), revokedAt: try row.optionalDate(10), revocationReason: row.optionalString(11), der: row.data(12))
    }

    var values: [SQLiteValue] {
        [
            SQLiteValue(id), .text(host), SQLiteValue(port), .text(sha256), .text(spkiSHA256), .text(subject), .text(issuer), .text(notAfter),
            SQLiteValue(approvedAt), SQLiteValue(note), SQLiteValue(revokedAt), SQLiteValue(revocationReason), SQLiteValue(der),
        ]
    }
    mutating func didInsert(rowID: Int64) { id = rowID }
}
