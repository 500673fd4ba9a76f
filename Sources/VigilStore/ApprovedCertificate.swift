public import Foundation

/// A certificate a user approved for one host and port after reviewing it: the leaf, by its
/// SHA-256 fingerprint, with what the user saw. A revoked approval stays, for the audit.
public struct ApprovedCertificate: Sendable, Hashable, Codable {

    public var id: Int64?
    public var host: String
    public var port: Int
    /// SHA-256 of the leaf's DER, hex with colons (as `Certificate.sha256Fingerprint`).
    public var sha256: String
    /// SHA-256 of the leaf's public key (SubjectPublicKeyInfo), base64: survives a renewal with the same key.
    public var spkiSHA256: String
    public var subject: String
    public var issuer: String
    public var notAfter: String
    public var approvedAt: Date
    public var note: String?
    public var revokedAt: Date?
    public var revocationReason: String?
    /// The certificate as reviewed (DER), for later summaries and audits; nil for approvals
    /// stored before Vigil kept certificates.
    public var der: Data?

    public var isActive: Bool { revokedAt == nil }
}

extension ApprovedCertificate: StoredValue {
    static var databaseTableName: String { "approved_certificate" }
    mutating func didInsert(rowID: Int64) { id = rowID }
}
