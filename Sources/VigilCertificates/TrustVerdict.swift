/// The outcome of trust evaluation. Evaluation never throws for an untrusted chain: the
/// verdict says why, in plain words, with OpenSSL's code where it has one.
public enum TrustVerdict: Sendable, Hashable {
    /// The chain leads to a trust anchor and passed every check.
    case trusted(TrustBasis)
    /// The chain failed; every reason found, in the order found.
    case untrusted([TrustReason])

    public var isTrusted: Bool {
        if case .trusted = self { return true }
        return false
    }

    /// Every reason the chain is untrusted (empty when trusted).
    public var reasons: [TrustReason] {
        if case .untrusted(let reasons) = self { return reasons }
        return []
    }
}

/// Why a trusted chain is trusted.
public struct TrustBasis: Codable, Sendable, Hashable {
    /// Where the anchor came from.
    public struct Source: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }
        /// The system trust store (or `SSL_CERT_FILE` / `SSL_CERT_DIR`).
        public static let systemStore = Source(rawValue: "system-store")
        /// A CA file given by the caller.
        public static let caFile = Source(rawValue: "ca-file")
        /// A certificate given in code.
        public static let certificate = Source(rawValue: "certificate")
    }
    public var source: Source
    /// The CA file holding the anchor, for `.caFile`.
    public var path: String?
    /// Subject of the trust anchor that ends the verified chain.
    public var anchorSubject: String
    /// SHA-256 fingerprint of the anchor.
    public var anchorSHA256: String
}

/// One reason a chain is not trusted.
public struct TrustReason: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Vigil's stable identifier (for example `expired`, `hostname-mismatch`, `unknown-issuer`).
    public var code: String
    /// One sentence in plain words.
    public var message: String
    /// OpenSSL's verify error code (`X509_V_ERR_*`), nil for Vigil's own checks.
    public var opensslCode: Int?
    /// OpenSSL's text for that code.
    public var opensslMessage: String?
    /// Position in the verified chain (0 = leaf), when the reason concerns one certificate.
    public var depth: Int?
    /// Subject of that certificate.
    public var subject: String?

    public init(code: String, message: String, opensslCode: Int? = nil, opensslMessage: String? = nil, depth: Int? = nil, subject: String? = nil) {
        self.code = code
        self.message = message
        self.opensslCode = opensslCode
        self.opensslMessage = opensslMessage
        self.depth = depth
        self.subject = subject
    }

    public var description: String {
        var text = message
        if let opensslCode { text += " [OpenSSL \(opensslCode): \(opensslMessage ?? "")]" }
        return text
    }
}
