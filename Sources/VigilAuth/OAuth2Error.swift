/// An OAuth2 login that did not complete. Never contains a code, token or verifier.
public struct OAuth2Error: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The loopback listener could not start.
        case redirectListener = "redirect-listener"
        /// The browser did not come back in time.
        case timeout
        /// The authorization server answered with an error (`error` in the redirect or the token answer).
        case refused
        /// The `state` that came back is not the one sent: a forged or mixed-up response.
        case stateMismatch = "state-mismatch"
        /// The token answer is not what RFC 6749 section 5.1 describes.
        case invalidTokenResponse = "invalid-token-response"
        /// OpenID Connect: the provider's discovery document is unsafe to use (another issuer, an
        /// endpoint over plain http, no S256, no JWKS).
        case discoveryRejected = "discovery-rejected"
        /// The authorization response names another issuer (RFC 9207): a mix-up.
        case issuerMismatch = "issuer-mismatch"
        /// Dynamic client registration (RFC 7591) failed.
        case registration
        /// The id_token failed validation (signature, algorithm, issuer, audience, expiry, nonce).
        case invalidIDToken = "invalid-id-token"
        /// The provider is unavailable for now (5xx, 429): nothing was decided.
        case unavailable
        /// The provider logged in another user than the one being added.
        case userMismatch = "user-mismatch"
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "oauth2: \(code.rawValue): \(reason)" }
}
