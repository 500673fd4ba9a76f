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
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "oauth2: \(code.rawValue): \(reason)" }
}
