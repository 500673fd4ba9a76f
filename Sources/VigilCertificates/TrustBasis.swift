/// Why a trusted chain is trusted.
public struct TrustBasis: Codable, Sendable, Hashable {
    /// Where the anchor came from.
    public struct Source: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        /// The source's name (`system-store`, ...).
        public var rawValue: String
        /// A source with this name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The source's name.
        public var description: String { rawValue }
        /// The system trust store (or `SSL_CERT_FILE` / `SSL_CERT_DIR`).
        public static let systemStore = Source(rawValue: "system-store")
        /// A root of the system trust store that is not a public root (``PublicRoots``): added to
        /// this machine by an administrator, a TLS-inspecting proxy or a private CA's package.
        public static let locallyAdded = Source(rawValue: "locally-added")
        /// A CA file given by the caller.
        public static let caFile = Source(rawValue: "ca-file")
        /// A certificate given in code.
        public static let certificate = Source(rawValue: "certificate")
    }
    /// Where the anchor came from.
    public var source: Source
    /// The CA file holding the anchor, for `.caFile`.
    public var path: String?
    /// Subject of the trust anchor that ends the verified chain.
    public var anchorSubject: String
    /// SHA-256 fingerprint of the anchor.
    public var anchorSHA256: String
}
