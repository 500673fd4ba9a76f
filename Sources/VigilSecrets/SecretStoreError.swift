/// A secret store that could not do what was asked. The reason never contains a secret.
public struct SecretStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// No Secret Service answers (no D-Bus session, no keyring daemon).
        case unavailable
        /// The keyring is locked and was not unlocked.
        case locked
        /// The user dismissed the keyring's prompt.
        case denied
        /// The account or kind is not acceptable (``SecretKey/init(account:kind:)``).
        case invalidKey
        /// The secret is not acceptable (it contains a NUL byte, which the Secret Service's text
        /// interface cannot carry).
        case invalidSecret
        /// Anything else the Secret Service reported.
        case failed
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "secret store: \(code.rawValue): \(reason)" }
}
