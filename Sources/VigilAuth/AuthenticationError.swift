public import VigilErrors

/// A login that did not start or complete for a reason outside OAuth2's own (``OAuth2Error``).
/// Never contains a secret.
public struct AuthenticationError: VigilError, Sendable, Hashable, CustomStringConvertible {
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

    public var description: String { "authentication: \(code): \(reason)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var codeText: String { code.description }
}
