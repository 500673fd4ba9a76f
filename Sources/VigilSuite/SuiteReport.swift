import Foundation
import VigilLogging

/// The suite's results, and their table, JSON and JUnit forms.
package struct SuiteReport: Sendable, Codable {
    /// The JSON report's format: raised when a field changes meaning or goes (docs/ci.md).
    /// 2: the invariants not checked for an external client are null; failure reasons are whole.
    package static let currentSchemaVersion = 2
    /// ``currentSchemaVersion``, written first for a reader to check.
    package var schemaVersion = SuiteReport.currentSchemaVersion
    /// Each scenario's verdict.
    package var results: [ScenarioResult]
    /// What broke across the run rather than in one scenario (the keyring not empty at the end, a
    /// secret in the run's HOME or TMPDIR).
    package var runFailures: [String] = []
    /// Wall time of the whole run.
    package var seconds: Double
    /// How many scenarios were played at a time.
    package var jobs: Int
    /// The external client held to the scenarios (`--client`), nil for Vigil's own.
    package var client: String?
    /// Why the external client was not scored at all (it did not log in to `valid`, and no
    /// scenario found a violation); nil when it was.
    package var notScored: String?
    /// In a network namespace: the hosts outside the scenarios the client contacted (address,
    /// port, TLS and server name, bytes), whether or not they carried a secret; nil outside one.
    package var otherHostsContacted: [String]?
    /// Violations of the run as a whole (a secret at a host outside the scenarios).
    package var runViolations: [Violation] = []
    /// For an external client: whether it ran in a network namespace of its own (only loopback:
    /// nothing it sent beyond the simulated hosts left the machine); false with
    /// `--no-network-namespace`, a weaker judgement; nil for Vigil's own client.
    package var networkNamespace: Bool?
    /// The external client did not log in to `valid`, yet it was scored: a violation somewhere
    /// makes it unsafe whatever its works score. Nil when it logged in.
    package var notLoggedIn: String?

    /// How many scenarios passed.
    package var passed: Int { results.filter { $0.status == .passed }.count }
    /// How many scenarios failed.
    package var failed: Int { results.filter { $0.status == .failed }.count }
    /// How many scenarios are known gaps.
    package var knownGaps: Int { results.filter { $0.status == .knownGap }.count }
    /// How many known gaps now pass (each fails the suite).
    package var closedGaps: Int { results.filter { $0.status == .gapClosed }.count }
    /// How many scenarios the external client never exercised.
    package var notExercised: Int { results.filter { $0.status == .notExercised }.count }
    /// How many scenarios do not apply to the external client.
    package var notApplicable: Int { results.filter { $0.status == .notApplicable }.count }
    /// Scenarios played with no violation, of those played.
    package var safeScore: (safe: Int, of: Int) {
        let played = results.filter { $0.safe != nil }
        return (played.filter { $0.safe == true }.count, played.count)
    }
    /// Scenarios where the client works (logged in, or reported the fault it met), of those that
    /// ask it to and whose fault it met.
    package var worksScore: (works: Int, of: Int) {
        let scored = results.filter { $0.works == .yes || $0.works == .no }
        return (scored.filter { $0.works == .yes }.count, scored.count)
    }
    /// Every scenario passed or is a known gap.
    package var succeeded: Bool { notScored == nil && runFailures.isEmpty && results.allSatisfy(\.status.isAcceptable) }

    /// A report of these results; no external client.
    package init(results: [ScenarioResult], runFailures: [String] = [], seconds: Double, jobs: Int) {
        self.results = results
        self.runFailures = runFailures
        self.seconds = seconds
        self.jobs = jobs
    }

    /// One line per scenario as it ends (for a terminal): `[17/147] pass valid (0.1 s)`, the
    /// count padded to the total's width so that the lines stay aligned.
    package static func progressLine(_ result: ScenarioResult, done: Int, of total: Int) -> String {
        let width = String(total).count
        let count = String(repeating: " ", count: max(0, width - String(done).count)) + String(done)
        return SafeText.escaped("[\(count)/\(total)] \(Self.mark(result.status)) \(result.scenario) (\(String(format: "%.1f", result.seconds)) s)")
    }

    static func mark(_ status: ScenarioResult.Status) -> String {
        switch status {
        case .passed: return "pass"
        case .failed: return "FAIL"
        case .knownGap: return "gap "
        case .gapClosed: return "FAIL"
        case .notExercised: return "n/e "
        case .notApplicable: return "n/a "
        }
    }

    /// The table (scenario, expected, got, invariants, time), the failures with their reasons,
    /// the known gaps with theirs, and the summary line.
    package func table() -> String {
        let header = ["scenario", "expected", "got", "invariants", "works", "time", "result"]
        var rows = results.map { result -> [String] in
            let invariants = result.invariants
            let text =
                result.safe == nil
                ? "-"
                : invariants.allHold
                    ? (invariants.allChecked ? "ok" : "ok (credentials only)")
                    : [("credentials", invariants.credentials), ("logs", invariants.logs), ("files", invariants.files), ("keyring", invariants.keyring)]
                        .filter { $0.1 == false }.map { "BROKEN " + $0.0 }.joined(separator: ", ")
            return [
                result.scenario, result.expected, result.got, text, result.works?.rawValue ?? "-", String(format: "%.1f s", result.seconds),
                result.status.rawValue,
            ]
        }
        rows.insert(header, at: 0)
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var out =
            rows.map { row in
                row.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                    .trimmingCharacters(in: .whitespaces)
            }.joined(separator: "\n") + "\n"
        let failing = results.filter { !$0.status.isAcceptable }
        if !failing.isEmpty || !runFailures.isEmpty {
            out += "\nFailures:\n"
            for failure in runFailures { out += "  (the run): \(failure)\n" }
            for result in failing {
                // The terminal's table cuts a long reason; JSON and JUnit keep it whole.
                for failure in result.failures { out += "  \(result.scenario): \(SuiteText.cut(failure))\n" }
                if let evidence = result.evidence { out += "    evidence: \(evidence)\n" }
            }
        }
        let skipped = results.filter { $0.status == .notApplicable }
        if !skipped.isEmpty {
            out += "\nNot applicable to this client (not played):\n"
            for result in skipped { out += "  \(result.scenario): \(result.failures.first ?? "")\n" }
        }
        let gaps = results.filter { $0.status == .knownGap }
        if !gaps.isEmpty {
            out += "\nKnown gaps (mitm-fixtures/known-gaps.json):\n"
            for gap in gaps { out += "  \(gap.scenario): expected \(gap.expected), got \(gap.got): \(gap.gapReason ?? "")\n" }
        }
        out += "\n" + summary() + "\n"
        return SafeText.escaped(out, keepingLines: true)
    }

    /// One line: the counts, the safe and works scores and the time; or why the external client was not scored.
    package func summary() -> String {
        if let notScored {
            let works = worksScore
            return "not scored: \(notScored) (works in \(works.works) of \(works.of))"
        }
        var parts = ["\(results.count) scenario\(results.count == 1 ? "" : "s")", "\(passed) passed", "\(failed + closedGaps) failed"]
        if client == nil { parts.append("\(knownGaps) known gaps remain") }
        if notExercised > 0 { parts.append("\(notExercised) not exercised") }
        if notApplicable > 0 { parts.append("\(notApplicable) not applicable") }
        let safe = safeScore, works = worksScore
        parts.append("safe in \(safe.safe) of \(safe.of) played, works in \(works.works) of \(works.of)")
        if !runFailures.isEmpty { parts.append("\(runFailures.count) run-wide failure(s)") }
        if closedGaps > 0 { parts.append("\(closedGaps) known gap(s) now pass: remove them from known-gaps.json") }
        if let notLoggedIn { parts.append("unsafe although it never logged in: \(notLoggedIn)") }
        if let otherHostsContacted, !otherHostsContacted.isEmpty {
            parts.append("other hosts contacted: \(otherHostsContacted.prefix(5).joined(separator: ", "))" + (otherHostsContacted.count > 5 ? ", ..." : ""))
        }
        if networkNamespace == false {
            parts.append("run without a network namespace (--no-network-namespace): what the client sent beyond the simulated hosts was not contained")
        }
        return parts.joined(separator: ", ") + String(format: " (%.1f s, %d job%@)", seconds, jobs, jobs == 1 ? "" : "s")
    }

    /// JUnit XML as GitHub Actions and GitLab CI render it: one testcase per scenario, failures
    /// with what the client did wrong, known gaps as skipped with their reason.
    package func junit() -> String {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let extra = (runFailures.isEmpty ? 0 : 1) + (notScored == nil ? 0 : 1)
        let failures = failed + closedGaps + extra, tests = results.count + extra
        let skippedCount = knownGaps + notExercised + notApplicable
        xml +=
            "<testsuites name=\"vigil simulate\" tests=\"\(tests)\" failures=\"\(failures)\" skipped=\"\(skippedCount)\" time=\"\(String(format: "%.3f", seconds))\">\n"
        xml +=
            "  <testsuite name=\"vigil simulate\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skippedCount)\" time=\"\(String(format: "%.3f", seconds))\">\n"
        for result in results {
            xml += "    <testcase classname=\"vigil.simulate\" name=\"\(Self.escape(result.scenario))\" time=\"\(String(format: "%.3f", result.seconds))\">"
            switch result.status {
            case .passed:
                xml += "</testcase>\n"
            case .notExercised, .notApplicable:
                xml += "\n      <skipped message=\"\(Self.escape("\(result.status.rawValue): \(result.failures.first ?? "")"))\"/>\n    </testcase>\n"
            case .knownGap:
                xml +=
                    "\n      <skipped message=\"\(Self.escape("known gap: expected \(result.expected), got \(result.got): \(result.gapReason ?? "")"))\"/>\n    </testcase>\n"
            case .failed, .gapClosed:
                // A violation, when there is one, names the failure (its code is the type).
                let message = result.violations.first?.message ?? result.failures.first ?? "failed"
                var body = "expected: \(result.expected)\ngot: \(result.got)\n" + result.failures.map { "- \($0)" }.joined(separator: "\n")
                if !result.violations.isEmpty {
                    var codes: [String] = []
                    for violation in result.violations where !codes.contains(violation.code.rawValue) { codes.append(violation.code.rawValue) }
                    body += "\nviolations: " + codes.joined(separator: ", ")
                }
                if let evidence = result.evidence { body += "\nevidence: \(evidence)" }
                // The type: the first violation's code, so that a pipeline can tell a leak from a missed outcome.
                let type = result.status == .gapClosed ? "gap-closed" : result.violations.first?.code.rawValue ?? "scenario-failed"
                xml += "\n      <failure message=\"\(Self.escape(message))\" type=\"\(Self.escape(type))\">\(Self.escape(body))</failure>\n    </testcase>\n"
            }
        }
        if let notScored {
            xml +=
                "    <testcase classname=\"vigil.simulate\" name=\"(not scored)\" time=\"0\">\n      <failure message=\"\(Self.escape(notScored))\" type=\"not-scored\">\(Self.escape(notScored))</failure>\n    </testcase>\n"
        }
        if !runFailures.isEmpty {
            xml +=
                "    <testcase classname=\"vigil.simulate\" name=\"(the run)\" time=\"0\">\n      <failure message=\"\(Self.escape(runViolations.first?.message ?? runFailures[0]))\" type=\"\(Self.escape(runViolations.first?.code.rawValue ?? "run-failed"))\">\(Self.escape(runFailures.joined(separator: "\n")))</failure>\n    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// XML text and attribute escaping (VigilLogging's SafeText.xmlEscaped, shared with server check's JUnit).
    static func escape(_ text: String) -> String { SafeText.xmlEscaped(text) }
}
