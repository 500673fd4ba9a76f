import Foundation
import Testing

@testable import VigilServerCheck

/// End of life and advisories held to a version, on a snapshot written here; and the grade's
/// rule (docs/cli.md) as ServerRating applies it.
@Suite("AdvisorySnapshot and ServerRating")
struct AdvisorySnapshotTests {
    static func snapshot(_ json: String) throws -> AdvisorySnapshot {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("advisories-\(UUID().uuidString).json").path
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try AdvisorySnapshot.load(from: path)
    }

    static let sample = #"""
        {"format": 1, "compiled": "2026-11-01", "staleAfterDays": 90, "sources": ["a test"], "coverage": "a test",
         "endOfLife": [{"product": "Nextcloud", "series": "28", "endOfLife": "2024-12"},
                       {"product": "Nextcloud", "series": "33", "endOfLife": "2027-02"},
                       {"product": "ownCloud", "before": "10", "endOfLife": "2019"},
                       {"product": "ownCloud", "series": "10", "endOfLife": "2030"}],
         "advisories": [{"id": "T-1", "product": "ownCloud", "severity": "high", "title": "t", "affected": [{"from": "10.6.0", "before": "10.13.1"}]},
                        {"id": "T-2", "product": "Nextcloud", "severity": "low", "title": "t", "affected": [{"before": "33.0.2"}]}]}
        """#

    static func date(_ text: String) throws -> Date { try Date(text + "T12:00:00Z", strategy: .iso8601) }

    static func codes(_ snapshot: AdvisorySnapshot, _ product: String, _ version: String, on day: String = "2026-11-29") throws -> Set<String> {
        Set(snapshot.findings(product: product, version: version, now: try date(day)).map(\.code))
    }

    @Test func versionsAndPeriods() {
        #expect(AdvisorySnapshot.components("10.13.0") == [10, 13, 0] && AdvisorySnapshot.components("28.0.4rc1") == [28, 0, 4])
        #expect(AdvisorySnapshot.components("beta") == nil)
        #expect(AdvisorySnapshot.less([10, 13], [10, 13, 1]) && !AdvisorySnapshot.less([10, 13, 0], [10, 13]) && AdvisorySnapshot.less([9, 99], [10]))
        #expect(!AdvisorySnapshot.isOver("2024-12", today: "2024-12-31") && AdvisorySnapshot.isOver("2024-12", today: "2025-01-01"))
        #expect(!AdvisorySnapshot.isOver("2019", today: "2019-12-31") && AdvisorySnapshot.isOver("2019", today: "2020-01-01"))
        #expect(!AdvisorySnapshot.isOver("2026-02-15", today: "2026-02-15") && AdvisorySnapshot.isOver("2026-02-15", today: "2026-02-16"))
    }

    @Test func endOfLifeAdvisoriesAndGapsAreSaid() throws {
        let snapshot = try Self.snapshot(Self.sample)
        #expect(try Self.codes(snapshot, "Nextcloud", "28.0.4").isSuperset(of: ["end-of-life", "advisory-low"]))
        #expect(try Self.codes(snapshot, "Nextcloud", "28.0.4", on: "2024-12-31").isDisjoint(with: ["end-of-life"]), "the last month of support")
        #expect(try Self.codes(snapshot, "ownCloud", "10.13.0") == ["advisory-high"])
        #expect(try Self.codes(snapshot, "ownCloud", "10.13.1").isEmpty, "the first fixed version")
        #expect(try Self.codes(snapshot, "ownCloud", "10.5.9").isEmpty, "before the first affected one")
        #expect(try Self.codes(snapshot, "ownCloud", "8.2.11") == ["end-of-life"])
        // A series the snapshot has no date for, a product it says nothing of: said, never safe.
        #expect(try Self.codes(snapshot, "Nextcloud", "34.0.0") == ["advisories-not-covered"])
        #expect(try Self.codes(snapshot, "OpenCloud", "2.0.0") == ["advisories-not-covered"])
        #expect(try Self.codes(snapshot, "ownCloud", "10.13.0", on: "2027-03-01") == ["advisory-high", "advisories-out-of-date"])
    }

    @Test(arguments: [
        #"{"format": 2, "compiled": "2026-11-01", "staleAfterDays": 90, "sources": [], "coverage": "", "endOfLife": [], "advisories": []}"#,
        #"{"format": 1, "compiled": "yesterday", "staleAfterDays": 90, "sources": [], "coverage": "", "endOfLife": [], "advisories": []}"#,
        #"{"format": 1, "compiled": "2026-11-01", "staleAfterDays": 90, "sources": [], "coverage": "", "endOfLife": [{"product": "x", "series": "1", "before": "2", "endOfLife": "2020"}], "advisories": []}"#,
        #"{"format": 1, "compiled": "2026-11-01", "staleAfterDays": 90, "sources": [], "coverage": "", "endOfLife": [{"product": "x", "series": "one", "endOfLife": "2020"}], "advisories": []}"#,
        #"{"format": 1, "compiled": "2026-11-01", "staleAfterDays": 90, "sources": [], "coverage": "", "endOfLife": [], "advisories": [{"id": "a", "product": "x", "severity": "high", "title": "t", "affected": [{"from": "later", "before": "2"}]}]}"#,
        #"{"format": 1, "compiled": "2026-11-01", "staleAfterDays": 90, "sources": [], "coverage": "", "endOfLife": [], "advisories": [{"id": "a", "product": "x", "severity": "critical", "title": "t", "affected": [{"before": "2"}]}]}"#,
        #"{"format": 1}"#, "not json",
    ])
    func aDamagedSnapshotIsRefusedByName(json: String) throws {
        let error = #expect(throws: ServerCheckError.self) { try Self.snapshot(json) }
        #expect(error?.code == .badData, "\(String(describing: error))")
    }

    @Test func theGradeIsTheWorstCap() {
        func grade(_ codes: [(String, ServerFinding.Level)], http: Bool = true) -> String {
            ServerRating(codes.map { ServerFinding($0.0, $0.1, "") }, httpChecked: http).grade
        }
        #expect(grade([]) == "A+" && grade([], http: false) == "A")
        #expect(grade([("no-ocsp-stapling", .notice), ("profile-suites", .notice)]) == "A+")
        #expect(grade([("no-hsts", .warning)]) == "A")
        #expect(grade([("protocol-tls10", .warning), ("no-hsts", .warning)]) == "B")
        #expect(grade([("sweet32", .warning), ("advisory-low", .warning)]) == "C")
        #expect(grade([("advisory-medium", .warning), ("sweet32", .warning)]) == "D")
        #expect(grade([("advisory-high", .error), ("advisory-medium", .warning)]) == "E")
        #expect(grade([("advisory-high", .error), ("end-of-life", .error)]) == "F")
        #expect(grade([("weak-dh", .error)]) == "F", "a 1024-bit group is an error, whatever its cap as a warning")
        let rating = ServerRating([ServerFinding("sweet32", .warning, ""), ServerFinding("no-hsts", .warning, "")], httpChecked: true)
        #expect(rating.because == ["sweet32"], "the findings that set the grade, only those")
    }

    /// Every code the module can produce has its JUnit testcase (docs/cli.md's table is the same list).
    @Test func everyCodeHasItsTestcase() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/VigilServerCheck")
        var produced: Set<String> = []
        for name in try FileManager.default.contentsOfDirectory(atPath: sources.path) where name.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(name), encoding: .utf8)
            for match in text.matches(of: /ServerFinding\(\s*"([a-z0-9-]+)"/) { produced.insert(String(match.1)) }
            for match in text.matches(of: /note\(\s*"([a-z0-9-]+)"/) { produced.insert("profile-" + String(match.1)) }
            for match in text.matches(of: /\(\s*"([a-z0-9-]+)", \.(error|warning|notice), \{/) { produced.insert(String(match.1)) }
        }
        produced.formUnion(["advisory-high", "advisory-medium", "advisory-low"])
        #expect(produced.count > 40, "\(produced.sorted())")
        #expect(produced.subtracting(ServerCheck.Report.checks).isEmpty, "no testcase: \(produced.subtracting(ServerCheck.Report.checks).sorted())")
        let documentation = try String(
            contentsOf: sources.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/cli.md"), encoding: .utf8)
        let undocumented = ServerCheck.Report.checks.filter { !documentation.contains("`\($0)`") }
        #expect(undocumented.isEmpty, "not in docs/cli.md: \(undocumented)")
    }
}
