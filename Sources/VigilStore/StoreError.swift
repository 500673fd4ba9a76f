/// A store that could not do what was asked. Never contains a secret (the store holds none).
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// The database file cannot be created or opened (permissions, a directory in the way).
        case cannotOpen = "cannot-open"
        /// The file is not a Vigil database, or is damaged; it is left untouched.
        case unreadable
        /// No such record (or, for a revocation, no active approval).
        case notFound = "not-found"
        /// A value the store refuses (an empty host, a port out of range).
        case invalid
        /// Anything else SQLite reported.
        case failed
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "store: \(code.rawValue): \(reason)" }
}
