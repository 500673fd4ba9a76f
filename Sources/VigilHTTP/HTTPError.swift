public import VigilCertificates
public import VigilErrors

/// An error reaching a server: resolution, connection, timeout, TLS handshake. Never contains a
/// credential or a request body.
public struct HTTPError: CodedError, CustomStringConvertible, Sendable {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidURL = "invalid-url"
            case unresolvedHost = "unresolved-host"
            case connectionRefused = "connection-refused"
            case timeout
            case notTLS = "not-tls"
            case handshakeFailed = "handshake-failed"
            case handshakeStalled = "handshake-stalled"
            case noAnswer = "no-answer"
            case proxy
            case transport
            case untrustedCertificate = "untrusted-certificate"
            case plainHTTPRefused = "plain-http-refused"
            case bodyTooLarge = "body-too-large"
            case cancelled
            case clientCertificateRequired = "client-certificate-required"
            case clientCertificateRefused = "client-certificate-refused"
            case proxyAuthenticationRequired = "proxy-authentication-required"
            case proxyAuthenticationRefused = "proxy-authentication-refused"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// The URL (or a `--resolve` entry) is not usable.
        public static let invalidURL = Code(.invalidURL)
        /// The host name could not be resolved.
        public static let unresolvedHost = Code(.unresolvedHost)
        /// The connection could not be made.
        public static let connectionRefused = Code(.connectionRefused)
        /// No answer within the timeout.
        public static let timeout = Code(.timeout)
        /// The peer answered, but not with TLS (a plain-HTTP port, for example).
        public static let notTLS = Code(.notTLS)
        /// The TLS handshake failed (or ended without a server certificate or without the policy's judgement).
        public static let handshakeFailed = Code(.handshakeFailed)
        /// The connection was made and the ClientHello sent, and the handshake did not finish in
        /// time: the server stalled (something answered: not "nothing reached it").
        public static let handshakeStalled = Code(.handshakeStalled)
        /// The connection was ready for the request (the TLS handshake done, or a kept connection)
        /// and closed, or failed, without an answer: the request may have reached the server.
        public static let noAnswer = Code(.noAnswer)
        /// The proxy failed, or is not an http or https proxy.
        public static let proxy = Code(.proxy)
        /// Anything else libcurl reported, or libcurl could not be loaded or set up.
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
        /// The proxy answered 407 and no credential it may be sent was kept for it (`vigil proxy login`).
        public static let proxyAuthenticationRequired = Code(.proxyAuthenticationRequired)
        /// The proxy answered 407 to the credential kept for it.
        public static let proxyAuthenticationRefused = Code(.proxyAuthenticationRefused)
        /// The code's name (`invalid-url`, ...).
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// The message for the user.
    public let reason: String
    /// libcurl's error code, when libcurl reported the error.
    public let curlCode: Int?
    /// For ``Code/untrustedCertificate``: the evaluation, to show the user before any approval.
    public var evaluation: TrustEvaluation?
    /// For the proxy authentication codes: the proxy, and the schemes and realm it asked for.
    public var proxyChallenge: ProxyChallenge?
    /// For the client certificate codes: what the server asked and the client presented.
    public var clientCertificate: ClientCertificateExchange?
    /// Whether a byte of the request may have left this machine for the server: false only when
    /// libcurl says the connection never became ready for it (no TLS handshake completed, no
    /// kept connection used), true when it did; nil for an error raised before any transfer
    /// (an unusable URL, a refused certificate: nothing was sent by construction). A refresh
    /// token is presented again only after `false` or a pre-transfer error.
    public var requestMayHaveLeft: Bool?
    /// The source file that threw (`#fileID`).
    public let file: String
    /// The source line that threw.
    public let line: Int

    /// An error with `code`, `reason` and libcurl's code if any, located where it is made.
    public init(_ code: Code, _ reason: String, curlCode: Int? = nil, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.curlCode = curlCode
        self.file = file
        self.line = line
    }

    /// The reason.
    public var description: String { reason }

}

extension HTTPError {
    /// The server refused the client certificate (mutual TLS), or the proxy refused the client: a
    /// refusal, as docs/cli.md says; anything else could not be done.
    public var outcome: Outcome {
        [.clientCertificateRequired, .clientCertificateRefused, .proxyAuthenticationRequired, .proxyAuthenticationRefused].contains(code) ? .refused : .error
    }
}
