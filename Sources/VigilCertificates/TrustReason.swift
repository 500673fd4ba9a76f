/// One reason a chain is not trusted.
public struct TrustReason: Codable, Sendable, Hashable, CustomStringConvertible {
    /// Vigil's stable identifier (for example `expired`, `hostname-mismatch`, `unknown-issuer`).
    public var code: Code
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

    /// A reason; the OpenSSL code and text, depth and subject are nil unless given.
    public init(code: Code, message: String, opensslCode: Int? = nil, opensslMessage: String? = nil, depth: Int? = nil, subject: String? = nil) {
        self.code = code
        self.message = message
        self.opensslCode = opensslCode
        self.opensslMessage = opensslMessage
        self.depth = depth
        self.subject = subject
    }

    /// The message, then `[OpenSSL CODE: text]` when OpenSSL gave a code.
    public var description: String {
        var text = message
        if let opensslCode { text += " [OpenSSL \(opensslCode): \(opensslMessage ?? "")]" }
        return text
    }
}
