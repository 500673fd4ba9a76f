import VigilErrors

/// Why the suite could not run (exit 2), as opposed to a scenario that failed (exit 1).
package struct SuiteError: VigilError, Sendable, CustomStringConvertible {
    /// What went wrong, as a value that can grow without breaking callers.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case malformedKnownGaps = "malformed-known-gaps"
            case noScenario = "no-scenario"
            case invalidFixture = "invalid-fixture"
            case secretService = "secret-service"
            case workDirectory = "work-directory"
            case invalidShard = "invalid-shard"
            case networkNamespace = "network-namespace"
            case clientCell = "client-cell"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The known-gaps file is malformed or names a scenario that does not exist.
        package static let malformedKnownGaps = Code(.malformedKnownGaps)
        /// No scenario to play.
        package static let noScenario = Code(.noScenario)
        /// A scenario fixture or a client profile is invalid.
        package static let invalidFixture = Code(.invalidFixture)
        /// The private Secret Service could not be started.
        package static let secretService = Code(.secretService)
        /// A directory or file the suite writes into cannot be used (exists already, or cannot be written).
        package static let workDirectory = Code(.workDirectory)
        /// `--shard` is not `I/N` with 1 <= I <= N.
        package static let invalidShard = Code(.invalidShard)
        /// A network namespace for an external client cannot be made (no user namespaces, no unshare).
        package static let networkNamespace = Code(.networkNamespace)
        /// The cell a client runs in (bubblewrap) cannot be made.
        package static let clientCell = Code(.clientCell)

        /// The code's stable text, such as `no-scenario`.
        package var description: String { base.rawValue }
    }

    /// What went wrong.
    package var code: Code
    /// Why, for the user.
    package var reason: String
    /// Where the error was raised (`#fileID`).
    package let file: String
    /// Where the error was raised (`#line`).
    package let line: Int

    /// An error with its code and reason, recording the caller's file and line.
    package init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// The reason.
    package var description: String { reason }

    /// The code's text, such as `no-scenario`.
    package var codeText: String { code.description }
}
