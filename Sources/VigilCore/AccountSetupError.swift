public import VigilHTTP

/// Why an account was not added. The reason is for the user; it never contains a secret.
public struct AccountSetupError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// Not an https URL (plain HTTP is not offered for account setup).
        case invalidURL = "invalid-url"
        /// The certificate is not trusted and was not approved (or cannot be: wrong host name).
        case certificateRejected = "certificate-rejected"
        /// The server points elsewhere; reported, not followed.
        case redirected
        /// The server does not answer like an ownCloud/OpenCloud server.
        case notACloudServer = "not-a-cloud-server"
        case maintenance
        /// The server lists the user's files but fails to serve one (an HTTP 5xx on a download).
        case serverError = "server-error"
        /// No Secret Service to keep the secrets in (checked before anything is asked or sent).
        case keyringUnavailable = "keyring-unavailable"
        /// No detected method is allowed by the settings.
        case noUsableMethod = "no-usable-method"
        /// The method picked is not implemented yet.
        case unsupportedMethod = "unsupported-method"
        case noPassword = "no-password"
        /// The server refused the credentials (401/403), or the authorization server refused the login.
        case wrongCredentials = "wrong-credentials"
        /// The login's answer failed one of Vigil's own checks (a forged or mixed-up authorization
        /// response, a malformed token response): refused before any token is kept.
        case responseRejected = "response-rejected"
        /// The user already has an account on this server.
        case duplicate
        /// A setting the chosen method needs is missing (an OAuth2 client id, say).
        case configuration
        /// The administrator's settings forbid it (a locked server URL, plain HTTP forbidden).
        case policy
    }

    public var code: Code
    public var reason: String
    /// For ``Code/redirected``: where the server points.
    public var redirect: Redirect?

    public init(_ code: Code, _ reason: String, redirect: Redirect? = nil) {
        self.code = code
        self.reason = reason
        self.redirect = redirect
    }

    public var description: String { reason }
}
