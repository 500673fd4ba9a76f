public import VigilErrors

/// An OAuth2 login that did not complete. Never contains a code, token or verifier.
public struct OAuth2Error: CodedError, Sendable, CustomStringConvertible {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case redirectListener = "redirect-listener"
            case timeout = "timeout"
            case refused = "refused"
            case stateMismatch = "state-mismatch"
            case invalidTokenResponse = "invalid-token-response"
            case discoveryRejected = "discovery-rejected"
            case issuerMismatch = "issuer-mismatch"
            case registration = "registration"
            case invalidIDToken = "invalid-id-token"
            case unavailable = "unavailable"
            case userMismatch = "user-mismatch"
            case redirectNotRegistered = "redirect-not-registered"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The loopback listener could not start.
        public static let redirectListener = Code(.redirectListener)
        /// The browser did not come back in time.
        public static let timeout = Code(.timeout)
        /// The authorization server answered with an error (`error` in the redirect or the token answer).
        public static let refused = Code(.refused)
        /// The `state` that came back is not the one sent: a forged or mixed-up response.
        public static let stateMismatch = Code(.stateMismatch)
        /// The token answer is not what RFC 6749 section 5.1 describes.
        public static let invalidTokenResponse = Code(.invalidTokenResponse)
        /// OpenID Connect: the provider's discovery document is unsafe to use (another issuer, an
        /// endpoint over plain http, no S256, no JWKS).
        public static let discoveryRejected = Code(.discoveryRejected)
        /// The authorization response names another issuer (RFC 9207): a mix-up.
        public static let issuerMismatch = Code(.issuerMismatch)
        /// Dynamic client registration (RFC 7591) failed.
        public static let registration = Code(.registration)
        /// The id_token failed validation (signature, algorithm, issuer, audience, expiry, nonce).
        public static let invalidIDToken = Code(.invalidIDToken)
        /// The provider is unavailable for now (5xx, 429): nothing was decided.
        public static let unavailable = Code(.unavailable)
        /// The provider does not accept Vigil's loopback redirect URI: it must be registered (the
        /// reason says exactly what).
        public static let redirectNotRegistered = Code(.redirectNotRegistered)
        /// The provider logged in another user than the one being added.
        public static let userMismatch = Code(.userMismatch)

        /// The code's name (`state-mismatch`).
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// One sentence for a person; never contains a code, token or verifier.
    public var reason: String
    /// The HTTP status the provider answered with, where the error is an answer's (`unavailable`).
    public var httpStatus: Int?
    /// Where the error was raised (`#fileID`).
    public let file: String
    /// The line where the error was raised (`#line`).
    public let line: Int

    /// An error with `code` and `reason`, raised at the caller's file and line.
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// `oauth2: <code>: <reason>`.
    public var description: String { "oauth2: \(code): \(reason)" }

}
