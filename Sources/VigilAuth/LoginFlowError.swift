public import VigilErrors

/// A Nextcloud Login Flow v2 that did not complete. Never contains the poll token or the app
/// password.
public struct LoginFlowError: CodedError, Sendable, CustomStringConvertible {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case notOffered = "not-offered"
            case unavailable
            case invalidAnswer = "invalid-answer"
            case plainHTTP = "plain-http"
            case otherOrigin = "other-origin"
            case timeout
            case cancelled
            case userMismatch = "user-mismatch"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The server has no login flow endpoint.
        public static let notOffered = Code(.notOffered)
        /// The server cannot start or answer a flow now (5xx, 429): nothing was decided.
        public static let unavailable = Code(.unavailable)
        /// An answer that is not what the flow describes.
        public static let invalidAnswer = Code(.invalidAnswer)
        /// The server named an http URL for the login page, the poll endpoint or itself.
        public static let plainHTTP = Code(.plainHTTP)
        /// The server named another origin than the one reviewed, and the user did not approve it.
        public static let otherOrigin = Code(.otherOrigin)
        /// The user did not approve in the browser before the flow expired.
        public static let timeout = Code(.timeout)
        /// Interrupted (Ctrl-C).
        public static let cancelled = Code(.cancelled)
        /// The browser logged in another user than the one being added.
        public static let userMismatch = Code(.userMismatch)

        /// The code's name (`plain-http`).
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

    /// `login-flow: <code>: <reason>`.
    public var description: String { "login-flow: \(code): \(reason)" }
}
