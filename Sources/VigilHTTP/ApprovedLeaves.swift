public import VigilCertificates
import VigilText

/// The leaf certificates approved for each origin, and by whom: the user (after reviewing one,
/// kept in the store) or the administrator in advance (`connection.approved-certificates`). Kept
/// under ``Endpoint/originKey``, so every spelling of a host (case, a trailing dot, IPv6 forms)
/// and the port written or left out find the same approvals; fingerprints compare as hex digits.
public struct ApprovedLeaves: Sendable, Hashable {
    /// Who approved a leaf.
    public enum Source: String, Sendable, Hashable, Codable {
        /// The user, after reviewing it (the store's approvals).
        case user
        /// The administrator, in advance (`connection.approved-certificates`).
        case administrator
    }

    private var entries: [String: [String: Source]] = [:]

    /// No approvals.
    public init() {}

    /// `fingerprints` (SHA-256, hex, colons optional, any case) approved for `endpoint` by `source`.
    public init(_ fingerprints: some Sequence<String>, for endpoint: Endpoint, by source: Source = .user) {
        add(fingerprints, for: endpoint, by: source)
    }

    /// Adds `fingerprints` approved for `endpoint` by `source`; a leaf the user approved stays the user's.
    public mutating func add(_ fingerprints: some Sequence<String>, for endpoint: Endpoint, by source: Source) {
        for fingerprint in fingerprints {
            let key = Self.normalized(fingerprint)
            if entries[endpoint.originKey]?[key] == .user { continue }
            entries[endpoint.originKey, default: [:]][key] = source
        }
    }

    /// Who approved `leaf` for `endpoint`; nil when nobody did.
    public func source(of leaf: Certificate, at endpoint: Endpoint) -> Source? {
        entries[endpoint.originKey]?[Self.normalized(leaf.sha256Fingerprint)]
    }

    /// True when no leaf is approved anywhere.
    public var isEmpty: Bool { entries.isEmpty }

    static func normalized(_ fingerprint: String) -> String { String(fingerprint.lowercased().filter(\.isHexDigit)) }
}
