/// A login that did not start or complete for a reason outside OAuth2's own (``OAuth2Error``).
/// Never contains a secret.
public struct AuthenticationError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The user gave no password.
        case noPassword = "no-password"
        /// A setting the method needs is missing (an OAuth2 client id).
        case configuration
        /// The method needs something detection did not find (a discovery document).
        case notOffered = "not-offered"
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "authentication: \(code.rawValue): \(reason)" }
}
