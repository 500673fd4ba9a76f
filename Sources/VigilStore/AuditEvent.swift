public import Foundation
public import GRDB

/// One entry of the audit trail: what changed in the store, when, and about what. Written in the
/// same transaction as the change, so the trail cannot miss one.
public struct AuditEvent: Sendable, Hashable, Codable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "audit_event"

    public enum Kind: String, Sendable, Hashable, Codable {
        case certificateApproved = "certificate-approved"
        case certificateRevoked = "certificate-revoked"
        case accountAdded = "account-added"
        case accountRemoved = "account-removed"
    }

    public var id: Int64?
    public var time: Date
    public var kind: Kind
    /// `host:port` (or the server URL, for an account) the event is about.
    public var target: String
    /// The certificate's SHA-256 fingerprint, or other detail in words.
    public var detail: String

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
