public import FoundationEssentials
import Glibc

/// One entry of the audit trail: what changed in the store, when, and about what. Written in the
/// same transaction as the change, so the trail cannot miss one.
public struct AuditEvent: Sendable, Hashable, Codable {

    /// What happened. Open-ended: a kind written by a newer Vigil is kept and shown as it is,
    /// never an error that hides the rest of the trail.
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
        /// The kind's name as stored (`certificate-approved`, ...).
        public var rawValue: String
        /// A kind named `rawValue`, known to this version or not.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Decodes the kind from a bare string.
        public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
        /// Encodes the kind as a bare string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
        /// The kind's name.
        public var description: String { rawValue }

        /// A certificate was approved for a host and port.
        public static let certificateApproved = Kind(rawValue: "certificate-approved")
        /// A certificate approval was revoked.
        public static let certificateRevoked = Kind(rawValue: "certificate-revoked")
        /// An account was added.
        public static let accountAdded = Kind(rawValue: "account-added")
        /// An account was removed.
        public static let accountRemoved = Kind(rawValue: "account-removed")
        /// A changed certificate was accepted by the renewal rule; the account's chain replaced.
        public static let accountChainRenewed = Kind(rawValue: "account-chain-renewed")
        /// An account's tokens were refreshed (or it logged in again).
        public static let accountTokensRefreshed = Kind(rawValue: "account-tokens-refreshed")
        /// The server refused an account's stored credentials: it needs a new login.
        public static let accountNeedsLogin = Kind(rawValue: "account-needs-login")
        /// An account's tokens were revoked at the server (RFC 7009) on removal.
        public static let accountTokensRevoked = Kind(rawValue: "account-tokens-revoked")
        /// An account was given a label (or its label was removed).
        public static let accountRenamed = Kind(rawValue: "account-renamed")
        /// An account was logged out: its secrets left the keyring, the account stays.
        public static let accountLoggedOut = Kind(rawValue: "account-logged-out")
        /// An account moved to another server URL after its review.
        public static let accountMoved = Kind(rawValue: "account-moved")
        /// An account's client certificate (mutual TLS) was given, replaced or removed.
        public static let accountClientCertificateChanged = Kind(rawValue: "account-client-certificate-changed")
        /// An account's access headers (an access proxy's service token) were given, replaced or removed.
        public static let accountAccessHeadersChanged = Kind(rawValue: "account-access-headers-changed")
        /// The CA certificates an account trusts were replaced (`account edit --ca-file`).
        public static let accountTrustAnchorsChanged = Kind(rawValue: "account-trust-anchors-changed")
        /// The kinds this version writes.
        public static let known: Set<Kind> = [
            .certificateApproved, .certificateRevoked, .accountAdded, .accountRemoved, .accountChainRenewed,
            .accountTokensRefreshed, .accountNeedsLogin, .accountTokensRevoked, .accountRenamed, .accountLoggedOut, .accountMoved,
            .accountClientCertificateChanged, .accountAccessHeadersChanged, .accountTrustAnchorsChanged,
        ]
        /// Whether this version writes this kind.
        public var isKnown: Bool { Self.known.contains(self) }
    }

    /// The row id; nil until stored.
    public var id: Int64?
    /// When it happened.
    public var time: Date
    /// What happened.
    public var kind: Kind
    /// `host:port` (or the server URL, for an account) the event is about.
    public var target: String
    /// The certificate's SHA-256 fingerprint, or other detail in words.
    public var detail: String
    /// The operating-system user who acted (nil in events written before it was recorded).
    public var actor: String?

    /// An event acted by `actor`, by default the user this process runs as.
    public init(id: Int64? = nil, time: Date, kind: Kind, target: String, detail: String, actor: String? = AuditEvent.currentUser) {
        self.id = id
        self.time = time
        self.kind = kind
        self.target = target
        self.detail = detail
        self.actor = actor
    }

    /// The OS user this process runs as (`name (uid N)`).
    public static var currentUser: String {
        let uid = geteuid()
        if let entry = getpwuid(uid), let name = entry.pointee.pw_name { return "\(String(cString: name)) (uid \(uid))" }
        return "uid \(uid)"
    }
}

extension AuditEvent: StoredValue {
    static var databaseTableName: String { "audit_event" }

    static let columns = ["id", "time", "kind", "target", "detail", "actor"]

    init(row: StoredRow) throws {
        self.init(
            id: row.integer(0), time: try row.requiredDate(1), kind: Kind(rawValue: try row.string(2)), target: try row.string(3),
            detail: try row.string(4), actor: row.optionalString(5))
    }

    var values: [SQLiteValue] { [SQLiteValue(id), SQLiteValue(time), .text(kind.rawValue), .text(target), .text(detail), SQLiteValue(actor)] }
    mutating func didInsert(rowID: Int64) { id = rowID }
}
