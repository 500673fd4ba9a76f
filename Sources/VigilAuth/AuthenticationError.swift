public import VigilErrors

/// A login that did not start or complete for a reason outside OAuth2's own (``OAuth2Error``).
/// Never contains a secret.
public struct AuthenticationError: CodedError, Sendable, CustomStringConvertible {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case noPassword = "no-password"
            case configuration = "configuration"
            case notOffered = "not-offered"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The user gave no password.
        public static let noPassword = Code(.noPassword)
        /// A setting the method needs is missing (an OAuth2 client id).
        public static let configuration = Code(.configuration)
        /// The method needs something detection did not find (a discovery document).
        public static let notOffered = Code(.notOffered)

        /// The code's name (`no-password`).
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// One sentence for a person; never contains a secret.
    public var reason: String
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

    /// `authentication: <code>: <reason>`.
    public var description: String { "authentication: \(code): \(reason)" }

}
