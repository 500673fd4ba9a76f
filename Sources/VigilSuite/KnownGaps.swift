import Foundation
package import VigilSimulator

/// `known-gaps.json` beside the fixtures: per scenario, the outcome Vigil's client does not reach
/// yet and why. A strict ratchet: a listed scenario that fails only on its outcome is reported as
/// a known gap; one that passes fails the suite until it leaves the list; an invariant broken is
/// never covered by it.
package struct KnownGaps: Sendable, Hashable {
    /// One scenario's known gap.
    package struct Gap: Sendable, Hashable, Codable {
        /// The outcome not reached yet (the fixture's outcome, or its `client.then`).
        package var outcome: String
        /// What Vigil's client gets today, exactly as `vigil simulate` shows it: a gap that changes
        /// is checked again, never covered silently.
        package var got: String
        /// Why, in words; names the issue that closes it.
        package var reason: String

        /// A gap with these fields.
        package init(outcome: String, got: String, reason: String) {
            self.outcome = outcome
            self.got = got
            self.reason = reason
        }
    }

    /// The gaps, by scenario name.
    package var gaps: [String: Gap]

    /// These gaps, unchecked (none by default).
    package init(gaps: [String: Gap] = [:]) { self.gaps = gaps }

    /// Reads the file; a missing file is an empty list. Throws ``SuiteError`` naming the file, the
    /// scenario and the field for a malformed one, or a gap for a scenario that does not exist.
    package init(path: String, scenarios: [Scenario]) throws {
        let file = (path as NSString).lastPathComponent
        guard FileManager.default.fileExists(atPath: path) else {
            self.init()
            return
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw SuiteError(.malformedKnownGaps, "\(file): cannot be read.") }
        let decoded: [String: Gap]
        do {
            decoded = try JSONDecoder().decode([String: Gap].self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw SuiteError(.malformedKnownGaps, "\(file): \(context.codingPath.first?.stringValue ?? "an entry"): field \(key.stringValue) is missing.")
        } catch {
            throw SuiteError(.malformedKnownGaps, "\(file): not an object of {\"outcome\", \"got\", \"reason\"} per scenario (\(error)).")
        }
        let byName = Dictionary(scenarios.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for (name, gap) in decoded.sorted(by: { $0.key < $1.key }) {
            guard let scenario = byName[name] else {
                throw SuiteError(.malformedKnownGaps, "\(file): \(name) is not a scenario; remove it.")
            }
            let expected = scenario.client?.then?.rawValue ?? scenario.outcome.rawValue
            guard gap.outcome == expected || gap.outcome == scenario.outcome.rawValue else {
                throw SuiteError(.malformedKnownGaps, "\(file): \(name): field outcome is \(gap.outcome), but the fixture expects \(expected).")
            }
            guard !gap.reason.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw SuiteError(.malformedKnownGaps, "\(file): \(name): field reason is empty; say why the outcome is not reached.")
            }
        }
        self.init(gaps: decoded)
    }
}
