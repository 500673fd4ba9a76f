import Foundation
import Testing
import VigilTestSupport

/// docs/clients.html, the page scripts/client-report.sh writes beside docs/clients.md: one file
/// with no external assets, and a row for every scenario of the Markdown table, as headless
/// Chromium renders it.
@Suite("The clients page", .enabled(if: TestPaths.chromium != nil, "needs Debian's chromium: run `make bootstrap`"))
struct ClientReportTests {
    @Test func thePageRendersEveryRowOfTheTable() async throws {
        let docs = TestPaths.root.appendingPathComponent("docs")
        let markdown = try String(contentsOf: docs.appendingPathComponent("clients.md"), encoding: .utf8)
        let header = try #require(markdown.range(of: "| scenario | expected |"))
        let scenarios = markdown[header.upperBound...].split(separator: "\n").dropFirst(2).prefix { $0.hasPrefix("| ") }
            .compactMap { $0.dropFirst(2).split(separator: " ").first.map(String.init) }
        #expect(scenarios.count > 50, "the Markdown table has its rows")

        let page = docs.appendingPathComponent("clients.html")
        let source = try String(contentsOf: page, encoding: .utf8)
        #expect(
            !source.contains("http://") && !source.contains("https://") && !source.contains("<script src") && !source.contains("<link"),
            "one file, no external assets")
        let home = try TestPaths.temporaryDirectory().path
        let rendered = try await CommandRunner.runDetached(
            TestPaths.chromium ?? "chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(home)/profile", "--timeout=15000",
                "--dump-dom", page.absoluteString,
            ], environment: ["HOME": home])
        let dom = rendered.standardOutput
        #expect(dom.contains("<table id=\"clients\""), "Chromium rendered the page: \(rendered.standardError.suffix(300))")
        for scenario in scenarios {
            #expect(dom.contains("<tr data-scenario=\"\(scenario)\">"), "row \(scenario)")
        }
        #expect(dom.components(separatedBy: "<tr data-scenario=").count - 1 == scenarios.count)
    }
}
