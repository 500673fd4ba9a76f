public import VigilErrors

/// A store that could not do what was asked. Never contains a secret (the store holds none).
public struct StoreError: VigilError, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case cannotOpen = "cannot-open"
            case unreadable = "unreadable"
            case notFound = "not-found"
            case invalid = "invalid"
            case failed = "failed"
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

        public var description: String { base.rawValue }
    }

    public var code: Code
    public var reason: String
    public let file: String
    public let line: Int

    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    public var description: String { "store: \(code): \(reason)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var codeText: String { code.description }
}
