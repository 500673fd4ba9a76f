public import VigilErrors

/// A store that could not do what was asked. Never contains a secret (the store holds none).
public struct StoreError: CodedError, Sendable, CustomStringConvertible {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case cannotOpen = "cannot-open"
            case unreadable = "unreadable"
            case notFound = "not-found"
            case invalid = "invalid"
            case failed = "failed"
            case damaged = "damaged"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The database file cannot be created or opened (permissions, a directory in the way).
        public static let cannotOpen = Code(.cannotOpen)
        /// The file is not a Vigil database, or is damaged; it is left untouched.
        public static let unreadable = Code(.unreadable)
        /// No such record (or, for a revocation, no active approval).
        public static let notFound = Code(.notFound)
        /// A value the store refuses (an empty host, a port out of range).
        public static let invalid = Code(.invalid)
        /// Anything else SQLite reported.
        public static let failed = Code(.failed)
        /// A stored value that cannot be read back (a reviewed chain, a kept certificate that no
        /// longer parses): said as such, never read as absent.
        public static let damaged = Code(.damaged)

        /// The code's name (`not-found`, ...).
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// The message for the user.
    public var reason: String
    /// The source file that threw (`#fileID`).
    public let file: String
    /// The source line that threw.
    public let line: Int

    /// An error with `code` and `reason`, located where it is made.
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// `store: CODE: reason`.
    public var description: String { "store: \(code): \(reason)" }

}
