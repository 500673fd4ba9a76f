public import VigilErrors

/// A request a ``SimulatedCloudClient`` could not complete.
public struct SimulatedCloudError: CodedError, CustomStringConvertible, Sendable {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case noSuchHost = "no-such-host"
            case cutOnTheWire = "cut-on-the-wire"
            case connection = "connection"
            case timedOut = "timed-out"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// The simulator serves no such host and scheme.
        public static let noSuchHost = Code(.noSuchHost)
        /// In process: the scenario cuts this answer on the wire, which only a live transport shows.
        public static let cutOnTheWire = Code(.cutOnTheWire)
        /// Live: the connection, its TLS handshake or the HTTP exchange failed.
        public static let connection = Code(.connection)
        /// Live: no whole answer within the time allowed.
        public static let timedOut = Code(.timedOut)
        /// The code's stable text, such as `no-such-host`.
        public var description: String { base.rawValue }
    }
    /// What went wrong.
    public let code: Code
    /// Why, for the user.
    public let reason: String
    /// Where the error was raised (`#fileID`).
    public let file: String
    /// Where the error was raised (`#line`).
    public let line: Int
    /// An error with its code and reason, recording the caller's file and line.
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }
    /// The reason.
    public var description: String { reason }
}
