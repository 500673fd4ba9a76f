/// One scenario's verdict in the suite.
package struct ScenarioResult: Sendable, Hashable, Codable {
    /// The verdict.
    package enum Status: String, Sendable, Hashable, Codable {
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
        package var isAcceptable: Bool { self != .failed && self != .gapClosed }
    }

    /// Whether a client works in a scenario that asks it to: logged in (a login scenario), or
    /// reported the fault it met (an error scenario).
    package enum Works: String, Sendable, Hashable, Codable {
        /// The client works in the scenario.
        case yes
        /// The client met the fault and does not work.
        case no
        /// The client never met the scenario's fault.
        case notExercised = "not-exercised"
    }

    /// The four invariants, each held or not.
    package struct Invariants: Sendable, Hashable, Codable {
        /// No credential at a host whose certificate was neither trusted nor approved, none over plain HTTP.
        package var credentials = true
        /// No planted secret in a log line or a message shown to the user; nil when not checked
        /// (an external client: they concern Vigil's own log, files and keyring).
        package var logs: Bool? = true
        /// No planted secret in a file under the scenario's directories; nil when not checked.
        package var files: Bool? = true
        /// The keyring held exactly the expected items, and none after the account was removed;
        /// nil when not checked.
        package var keyring: Bool? = true

        /// Whether every invariant checked held.
        package var allHold: Bool { credentials && logs != false && files != false && keyring != false }
        /// Whether all four were checked.
        package var allChecked: Bool { logs != nil && files != nil && keyring != nil }

        enum CodingKeys: String, CodingKey { case credentials, logs, files, keyring }

        /// Every key written, one not checked as null (never left out, never `true`).
        package func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(credentials, forKey: .credentials)
            try container.encode(logs, forKey: .logs)
            try container.encode(files, forKey: .files)
            try container.encode(keyring, forKey: .keyring)
        }
        /// Every invariant held.
        package init() {}
    }

    /// The scenario's name.
    package var scenario: String
    /// The fixture's outcome (with `→ then` when the user approves something).
    package var expected: String
    /// What the client did, classified the same way.
    package var got: String
    /// The verdict.
    package var status: Status
    /// Which invariants held.
    package var invariants: Invariants
    /// No violation (nil when the scenario was not played).
    package var safe: Bool?
    /// ``Works``; nil for scenarios that ask only for safety, or were not played.
    package var works: Works?
    /// What went wrong, each with where the evidence is; empty when passed.
    package var failures: [String]
    /// The violations among them, each with its code (``Violation/Code``); empty when safe.
    package var violations: [Violation] = []
    /// For known gaps: why, from known-gaps.json.
    package var gapReason: String?
    /// The client's own message when it stopped.
    package var clientMessage: String?
    /// How long the scenario took, in seconds.
    package var seconds: Double
    /// Where the scenario's directories were kept (`--keep`), if they were.
    package var evidence: String?
}
