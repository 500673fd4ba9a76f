/// One scenario's verdict in the suite.
public struct ScenarioResult: Sendable, Hashable, Codable {
    /// The verdict.
    public enum Status: String, Sendable, Hashable, Codable {
        /// The outcome reached, every invariant held.
        case passed
        /// The outcome missed (not a known gap), an invariant broken, or the scenario could not run.
        case failed
        /// Listed in known-gaps.json and missed only its outcome.
        case knownGap = "known-gap"
        /// Listed in known-gaps.json, yet passed: the list must shrink (fails the suite).
        case gapClosed = "gap-closed"

        /// An external client never reached the scenario's fault: neither a pass nor a failure.
        case notExercised = "not-exercised"
        /// An external client cannot be held to this scenario (not played; the reason says why).
        case notApplicable = "not-applicable"

        /// Whether the suite may still pass with this result.
        public var isAcceptable: Bool { self != .failed && self != .gapClosed }
    }

    /// Whether a client works in a scenario that asks it to: logged in (a login scenario), or
    /// reported the fault it met (an error scenario).
    public enum Works: String, Sendable, Hashable, Codable {
        /// The client works in the scenario.
        case yes
        /// The client met the fault and does not work.
        case no
        /// The client never met the scenario's fault.
        case notExercised = "not-exercised"
    }

    /// The four invariants, each held or not.
    public struct Invariants: Sendable, Hashable, Codable {
        /// No credential at a host whose certificate was neither trusted nor approved, none over plain HTTP.
        public var credentials = true
        /// No planted secret in a log line or a message shown to the user.
        public var logs = true
        /// No planted secret in a file under the scenario's directories.
        public var files = true
        /// The keyring held exactly the expected items, and none after the account was removed.
        public var keyring = true

        /// Whether all four invariants held.
        public var allHold: Bool { credentials && logs && files && keyring }
        /// Every invariant held.
        public init() {}
    }

    /// The scenario's name.
    public var scenario: String
    /// The fixture's outcome (with `→ then` when the user approves something).
    public var expected: String
    /// What the client did, classified the same way.
    public var got: String
    /// The verdict.
    public var status: Status
    /// Which invariants held.
    public var invariants: Invariants
    /// No violation (nil when the scenario was not played).
    public var safe: Bool?
    /// ``Works``; nil for scenarios that ask only for safety, or were not played.
    public var works: Works?
    /// What went wrong, each with where the evidence is; empty when passed.
    public var failures: [String]
    /// The violations among them, each with its code (``Violation/Code``); empty when safe.
    public var violations: [Violation] = []
    /// For known gaps: why, from known-gaps.json.
    public var gapReason: String?
    /// The client's own message when it stopped.
    public var clientMessage: String?
    /// How long the scenario took, in seconds.
    public var seconds: Double
    /// Where the scenario's directories were kept (`--keep`), if they were.
    public var evidence: String?
}
