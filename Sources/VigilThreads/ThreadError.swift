public import VigilErrors

/// A thread of its own could not be started (the process is out of threads or memory):
/// reported like any error, where Foundation's `Thread` stopped the program.
public struct ThreadError: CodedError {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case cannotStart = "cannot-start"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// `pthread_create` failed.
        public static let cannotStart = Code(.cannotStart)

        /// The code's name (`cannot-start`).
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// One sentence for a person.
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

    /// `thread: <code>: <reason>`.
    public var description: String { "thread: \(code): \(reason)" }

}
