public import VigilCertificates
public import VigilErrors

/// An error reaching a server: resolution, connection, timeout, TLS handshake. Never contains a
/// credential or a request body.
public struct HTTPError: VigilError, Hashable, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidURL = "invalid-url"
            case unresolvedHost = "unresolved-host"
            case connectionRefused = "connection-refused"
            case timeout
            case notTLS = "not-tls"
            case handshakeFailed = "handshake-failed"
            case proxy
            case transport
            case untrustedCertificate = "untrusted-certificate"
            case plainHTTPRefused = "plain-http-refused"
            case bodyTooLarge = "body-too-large"
            case cancelled
            case clientCertificateRequired = "client-certificate-required"
            case clientCertificateRefused = "client-certificate-refused"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        public static let invalidURL = Code(.invalidURL)
        public static let unresolvedHost = Code(.unresolvedHost)
        public static let connectionRefused = Code(.connectionRefused)
        public static let timeout = Code(.timeout)
        /// The peer answered, but not with TLS (a plain-HTTP port, for example).
        public static let notTLS = Code(.notTLS)
        public static let handshakeFailed = Code(.handshakeFailed)
        public static let proxy = Code(.proxy)
        public static let transport = Code(.transport)
        /// The trust policy refused the server's chain during the handshake; nothing was sent.
        public static let untrustedCertificate = Code(.untrustedCertificate)
        /// A plain-HTTP URL while the client accepts only https.
        public static let plainHTTPRefused = Code(.plainHTTPRefused)
        /// The answer's body exceeded the client's limit.
        public static let bodyTooLarge = Code(.bodyTooLarge)
        /// The task that waited for the transfer was cancelled; libcurl stopped it.
        public static let cancelled = Code(.cancelled)
        /// The server demands a client certificate (mutual TLS) and none was presented.
        public static let clientCertificateRequired = Code(.clientCertificateRequired)
        /// The server refused the client certificate presented (a TLS alert, or its HTTP error).
        public static let clientCertificateRefused = Code(.clientCertificateRefused)
        public var description: String { base.rawValue }
    }

    public let code: Code
    public let reason: String
    /// libcurl's error code, when libcurl reported the error.
    public let curlCode: Int?
    /// For ``Code/untrustedCertificate``: the evaluation, to show the user before any approval.
    public var evaluation: TrustEvaluation?
    /// For the client certificate codes: what the server asked and the client presented.
    public var clientCertificate: ClientCertificateExchange?
    public let file: String
    public let line: Int

    public init(_ code: Code, _ reason: String, curlCode: Int? = nil, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.curlCode = curlCode
        self.file = file
        self.line = line
    }

    public var description: String { reason }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var codeText: String { code.description }
}
