/// Why the suite could not run (exit 2), as opposed to a scenario that failed (exit 1).
public struct SuiteError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        case malformedKnownGaps = "malformed-known-gaps"
        case noScenario = "no-scenario"
        case invalidFixture = "invalid-fixture"
        case secretService = "secret-service"
        case workDirectory = "work-directory"
        case invalidShard = "invalid-shard"
    }

    public var code: Code
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
}
