/// Something in a certificate that deserves a security engineer's attention. A finding is
/// information about the certificate; whether the chain is trusted is the ``TrustVerdict``.
public struct Finding: Codable, Sendable, Hashable {
    /// How much a finding matters.
    public enum Severity: String, Codable, Sendable, Hashable, Comparable {
        case info, warning, critical
        private var rank: Int { self == .critical ? 2 : self == .warning ? 1 : 0 }
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
    }

    /// A stable identifier, for scripts and the JSON schema.
    public struct Code: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let expired = Code(rawValue: "expired")
        public static let notYetValid = Code(rawValue: "not-yet-valid")
        public static let expiresSoon = Code(rawValue: "expires-soon")
        public static let sha1Signature = Code(rawValue: "sha1-signature")
        public static let weakSignature = Code(rawValue: "weak-signature")
        public static let weakKey = Code(rawValue: "weak-key")
        public static let selfSigned = Code(rawValue: "self-signed")
        public static let caAsLeaf = Code(rawValue: "ca-as-leaf")
        public static let longLifetime = Code(rawValue: "long-lifetime")
        public static let hostnameOnlyInCommonName = Code(rawValue: "hostname-only-in-cn")
    }

    public var code: Code
    public var severity: Severity
    /// One sentence in plain words.
    public var message: String

    public init(_ code: Code, _ severity: Severity, _ message: String) {
        self.code = code
        self.severity = severity
        self.message = message
    }
}
