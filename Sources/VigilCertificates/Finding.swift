/// Something in a certificate that deserves a security engineer's attention. A finding is
/// information about the certificate; whether the chain is trusted is the ``TrustVerdict``.
public struct Finding: Codable, Sendable, Hashable {
    /// How much a finding matters.
    public enum Severity: String, Codable, Sendable, Hashable, Comparable {
        /// Least to most severe.
        case info, warning, critical
        private var rank: Int { self == .critical ? 2 : self == .warning ? 1 : 0 }
        /// `info` < `warning` < `critical`.
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
    }

    /// A stable identifier, for scripts and the JSON schema.
    public struct Code: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        /// The code's text.
        public var rawValue: String
        /// A code with this text.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's text.
        public var description: String { rawValue }

        /// The certificate has expired (critical).
        public static let expired = Code(rawValue: "expired")
        /// The certificate is not valid yet (critical).
        public static let notYetValid = Code(rawValue: "not-yet-valid")
        /// Expires within ``Certificate/expiryWarningDays`` days (warning).
        public static let expiresSoon = Code(rawValue: "expires-soon")
        /// Signed with SHA-1 (critical; a root's own self-signature aside).
        public static let sha1Signature = Code(rawValue: "sha1-signature")
        /// Signed with a broken digest, or one OpenSSL cannot rate (critical).
        public static let weakSignature = Code(rawValue: "weak-signature")
        /// An RSA or DSA key below 2048 bits, or an EC key below 256 bits (critical).
        public static let weakKey = Code(rawValue: "weak-key")
        /// Self-signed but not the chain's root (warning for a leaf, info otherwise).
        public static let selfSigned = Code(rawValue: "self-signed")
        /// A CA certificate used as the leaf (warning).
        public static let caAsLeaf = Code(rawValue: "ca-as-leaf")
        /// A leaf valid longer than ``Certificate/maximumLeafLifetimeDays`` days (info).
        public static let longLifetime = Code(rawValue: "long-lifetime")
        /// The name asked for appears only in the subject CN, not in the SANs (critical).
        public static let hostnameOnlyInCommonName = Code(rawValue: "hostname-only-in-cn")
        /// The chain ends in a root added to this machine's trust store, not a public root: a
        /// TLS-inspecting proxy or a private CA (warning; a chain finding).
        public static let locallyAddedRoot = Code(rawValue: "locally-added-root")
        /// The server's own certificate is known (an approval, an account's reviewed chain) and
        /// another one came through a locally added root: an interception (critical; a chain finding).
        public static let interception = Code(rawValue: "interception")
    }

    /// What was found.
    public var code: Code
    /// How much it matters.
    public var severity: Severity
    /// One sentence in plain words.
    public var message: String

    /// The chain finding for an anchor that is a locally added root.
    public static func locallyAddedRoot(_ basis: TrustBasis) -> Finding {
        Finding(
            .locallyAddedRoot, .warning,
            "The chain ends in \(basis.anchorSubject) (SHA-256 \(basis.anchorSHA256)), added to this machine's trust store, not a public root: a TLS-inspecting proxy or a private CA can read this connection."
        )
    }

    /// A finding of `code` and `severity`, with `message`.
    public init(_ code: Code, _ severity: Severity, _ message: String) {
        self.code = code
        self.severity = severity
        self.message = message
    }
}
