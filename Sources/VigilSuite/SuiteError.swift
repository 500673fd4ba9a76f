public import VigilErrors

/// Why the suite could not run (exit 2), as opposed to a scenario that failed (exit 1).
public struct SuiteError: VigilError, Sendable, CustomStringConvertible {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case malformedKnownGaps = "malformed-known-gaps"
            case noScenario = "no-scenario"
            case invalidFixture = "invalid-fixture"
            case secretService = "secret-service"
            case workDirectory = "work-directory"
            case invalidShard = "invalid-shard"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        public static let malformedKnownGaps = Code(.malformedKnownGaps)
        public static let noScenario = Code(.noScenario)
        public static let invalidFixture = Code(.invalidFixture)
        public static let secretService = Code(.secretService)
        public static let workDirectory = Code(.workDirectory)
        public static let invalidShard = Code(.invalidShard)

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

    public var description: String { reason }

    public var codeText: String { code.description }
}
