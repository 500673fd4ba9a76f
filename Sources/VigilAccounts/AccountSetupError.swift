public import VigilErrors
public import VigilHTTP

/// Why an account was not added. The reason is for the user; it never contains a secret.
public struct AccountSetupError: VigilError, Sendable, CustomStringConvertible {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidURL = "invalid-url"
            case certificateRejected = "certificate-rejected"
            case redirected = "redirected"
            case notACloudServer = "not-a-cloud-server"
            case maintenance = "maintenance"
            case serverError = "server-error"
            case keyringUnavailable = "keyring-unavailable"
            case noUsableMethod = "no-usable-method"
            case unsupportedMethod = "unsupported-method"
            case noPassword = "no-password"
            case wrongCredentials = "wrong-credentials"
            case responseRejected = "response-rejected"
            case duplicate = "duplicate"
            case configuration = "configuration"
            case policy = "policy"
            case unavailable = "unavailable"
            case clientCertificate = "client-certificate"
            case accessProxy = "access-proxy"
            case loginExpired = "login-expired"
            case redirectNotRegistered = "redirect-not-registered"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Not an https URL (plain HTTP is not offered for account setup).
        public static let invalidURL = Code(.invalidURL)
        /// The certificate is not trusted and was not approved (or cannot be: wrong host name).
        public static let certificateRejected = Code(.certificateRejected)
        /// The server is unavailable for now: a blip that outlasted the retries, or an access
        /// gateway in front of it that lets nobody through yet. Try again later.
        public static let unavailable = Code(.unavailable)
        /// Mutual TLS: the client certificate cannot be used (expired, no clientAuth, broken
        /// crypto), the server requires one the account does not have, or refused the one presented.
        public static let clientCertificate = Code(.clientCertificate)
        /// An access proxy (Cloudflare Access, oauth2-proxy, Pomerium) stands in front of the server
        /// and wants a service token or a client certificate.
        public static let accessProxy = Code(.accessProxy)
        /// A token account's login ran out: its refresh token expired, was revoked or cannot be
        /// presented again (an interrupted refresh), or none was issued and the access token
        /// expired. `vigil account login` again; nothing was deleted (exit 75).
        public static let loginExpired = Code(.loginExpired)
        /// The login provider does not accept Vigil's loopback redirect URI: the reason says what
        /// to register (exit 78, a setting of the provider's).
        public static let redirectNotRegistered = Code(.redirectNotRegistered)
        /// The server points elsewhere; reported, not followed.
        public static let redirected = Code(.redirected)
        /// The server does not answer like an ownCloud/OpenCloud server.
        public static let notACloudServer = Code(.notACloudServer)
        /// The server says it is in maintenance mode, or the login provider is unavailable.
        public static let maintenance = Code(.maintenance)
        /// The server lists the user's files but fails to serve one (an HTTP 5xx on a download).
        public static let serverError = Code(.serverError)
        /// No Secret Service to keep the secrets in (checked before anything is asked or sent).
        public static let keyringUnavailable = Code(.keyringUnavailable)
        /// No detected method is allowed by the settings.
        public static let noUsableMethod = Code(.noUsableMethod)
        /// The method picked is not implemented yet.
        public static let unsupportedMethod = Code(.unsupportedMethod)
        /// No password was given, or the browser login did not finish in time.
        public static let noPassword = Code(.noPassword)
        /// The server refused the credentials (401/403), or the authorization server refused the login.
        public static let wrongCredentials = Code(.wrongCredentials)
        /// The login's answer failed one of Vigil's own checks (a forged or mixed-up authorization
        /// response, a malformed token response): refused before any token is kept.
        public static let responseRejected = Code(.responseRejected)
        /// The user already has an account on this server.
        public static let duplicate = Code(.duplicate)
        /// A setting the chosen method needs is missing (an OAuth2 client id, say).
        public static let configuration = Code(.configuration)
        /// The administrator's settings forbid it (a locked server URL, plain HTTP forbidden).
        public static let policy = Code(.policy)

        /// The code's stable text, such as `certificate-rejected`.
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// Why, for the user; never contains a secret.
    public var reason: String
    /// Where the error was raised (`#fileID`).
    public let file: String
    /// Where the error was raised (`#line`).
    public let line: Int
    /// For ``Code/redirected``: where the server points.
    public var redirect: Redirect?

    /// An error with its code and reason, recording the caller's file and line.
    public init(_ code: Code, _ reason: String, redirect: Redirect? = nil, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.redirect = redirect
        self.file = file
        self.line = line
    }

    /// The reason.
    public var description: String { reason }

    /// The code's text, such as `certificate-rejected`.
    public var codeText: String { code.description }
}

extension AccountSetupError {
    /// A refusal (of a certificate, a redirect, a credential, an answer, a policy), unavailable for
    /// now (the server, or a login that ran out), a setting, or anything else.
    public var outcome: Outcome {
        let refused: Set<Code> = [
            .certificateRejected, .redirected, .wrongCredentials, .noPassword, .responseRejected, .policy, .clientCertificate, .accessProxy,
        ]
        if refused.contains(code) { return .refused }
        if code == .unavailable || code == .loginExpired { return .unavailable }
        if code == .configuration || code == .redirectNotRegistered { return .configuration }
        return .error
    }
}
