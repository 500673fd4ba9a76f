import Foundation
import Testing
import VigilLogging

@testable import VigilSuite

/// Text from servers is hostile: the table, JUnit and JSON never carry a control character,
/// a bidirectional override or an XML-invalid noncharacter.
@Suite("vigil simulate: report text")
struct SuiteReportTests {
    static let hostile = "evil\u{1B}[2J\u{1B}]0;owned\u{07} \u{202E}gnp.exe \u{9B}31m \u{FFFE}\r\nline"

    func report() -> SuiteReport {
        let result = ScenarioResult(
            scenario: "x", expected: "login", got: "report-error", status: .failed, invariants: .init(),
            failures: ["The client said: " + Self.hostile], gapReason: nil, clientMessage: Self.hostile, seconds: 0.1)
        return SuiteReport(results: [result], seconds: 0.1, jobs: 1)
    }

    static func isClean(_ text: String, allowing: Set<Unicode.Scalar> = ["\n"]) -> Bool {
        text.unicodeScalars.allSatisfy { allowing.contains($0) || !SafeText.isDangerous($0) }
    }

    @Test func theTableEscapesHostileText() {
        let table = report().table()
        #expect(Self.isClean(table))
        #expect(table.contains("evil\\u{1b}[2J"))
        #expect(table.contains("\\u{202e}gnp.exe"))
    }

    @Test func junitIsValidXMLText() {
        let xml = report().junit()
        #expect(Self.isClean(xml))
        #expect(!xml.contains("\u{FFFE}") && xml.contains("\\u{fffe}"))
        #expect(xml.contains("&#10;"), "line breaks inside the failure text are character references")
    }

    /// A reason is one safe line, whole for JSON and JUnit (bounded against a hostile client),
    /// cut only for the terminal's table.
    @Test func oneLineIsSafeAndWholeTheTableCutsIt() {
        let line = SuiteText.oneLine(String(repeating: "a\u{1B}", count: 400))
        #expect(Self.isClean(line, allowing: []))
        #expect(line.count == 2800, "every character kept, each escape written out")
        #expect(SuiteText.cut(line).count <= 301)
        #expect(SuiteText.oneLine(String(repeating: "b", count: 100_000)).count <= 8001)
    }
}
