import VigilErrors

/// A thread of its own could not be started (the process is out of threads or memory):
/// reported like any error, where Foundation's `Thread` stopped the program.
package struct ThreadError: CodedError {
    /// What went wrong, as a value that can grow without breaking callers.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case cannotStart = "cannot-start"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// `pthread_create` failed.
        package static let cannotStart = Code(.cannotStart)

        /// The code's name (`cannot-start`).
        package var description: String { base.rawValue }
    }

    /// What went wrong.
    package var code: Code
    /// One sentence for a person.
    package var reason: String
    /// Where the error was raised (`#fileID`).
    package let file: String
    /// The line where the error was raised (`#line`).
    package let line: Int

    /// An error with `code` and `reason`, raised at the caller's file and line.
    package init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// `thread: <code>: <reason>`.
    package var description: String { "thread: \(code): \(reason)" }

}
