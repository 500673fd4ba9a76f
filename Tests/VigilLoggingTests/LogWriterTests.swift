import Foundation
import Logging
import Testing
import VigilLogging
import VigilTestSupport

/// Lines captured by a sink.
final class MemorySink: LogSink, @unchecked Sendable {  // guarded by lock
    let minimumLevel: Logger.Level
    private let lock = NSLock()
    private var stored = ""
    init(minimumLevel: Logger.Level = .trace) { self.minimumLevel = minimumLevel }
    func write(_ lines: String) {
        lock.lock()
        stored += lines
        lock.unlock()
    }
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

@Suite("Formats and writers")
struct LogWriterTests {
    func logger(_ change: (inout LogConfiguration) -> Void = { _ in }, sinks: [any LogSink]) -> Logger {
        var configuration = LogConfiguration()
        configuration.level = .trace
        change(&configuration)
        let handler = configuration.handler(label: "vigil.test", sinks: sinks)
        return Logger(label: "vigil.test") { _ in handler }
    }

    @Test func textLinesHaveTimeLevelLabelMessageMetadataSource() {
        let sink = MemorySink()
        logger(sinks: [sink]).privacy.notice("hello \(public: "world") \("secret")", metadata: ["port": .public(443)])
        let line = sink.text
        #expect(
            line.range(
                of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z notice vigil.test: hello world «private» port=443 \(VigilLoggingTests\)\n$"#,
                options: .regularExpression) != nil, "\(line)")
    }

    @Test func singleLinedRepeatsTheLeadIn() {
        let sink = MemorySink()
        logger(sinks: [sink]).info("one\ntwo")
        let lines = sink.text.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.contains("info vigil.test: ") && $0.hasSuffix("(VigilLoggingTests)") })
        let multi = MemorySink()
        logger({ $0.singleLined = false }, sinks: [multi]).info("one\ntwo")
        #expect(multi.text.split(separator: "\n").count == 2)
        #expect(multi.text.components(separatedBy: "vigil.test:").count == 2)
    }

    @Test func jsonIsOneObjectPerLineWithTheDocumentedKeys() throws {
        let sink = MemorySink()
        let log = logger({ $0.format = .json }, sinks: [sink])
        log.privacy.warning("multi\nline \("private")", metadata: ["n": .public(1), "user": "alice"])
        log.info("second")
        let lines = sink.text.split(separator: "\n")
        #expect(lines.count == 2)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["level", "time", "label", "message", "metadata", "source"])
        #expect(object["message"] as? String == "multi\nline «private»")
        #expect((object["metadata"] as? [String: Any])?["user"] as? String == "«private»")
        #expect(object["level"] as? String == "warning")
    }

    @Test func jsonComposedCarriesTheTextLine() throws {
        let sink = MemorySink()
        logger({ $0.format = .jsonComposed }, sinks: [sink]).info("hello")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(sink.text.utf8)) as? [String: Any])
        #expect((object["message"] as? String)?.contains("info vigil.test: hello") == true)
    }

    @Test func sinksHaveTheirOwnLevels() {
        let all = MemorySink(), loud = MemorySink(minimumLevel: .warning)
        let log = logger(sinks: [all, loud])
        log.info("info")
        log.error("error")
        #expect(all.text.contains("info") && all.text.contains("error"))
        #expect(!loud.text.contains("info vigil.test: info") && loud.text.contains("error"))
    }

    @Test func fileSinkRotatesBySize() throws {
        let directory = try TestPaths.temporaryDirectory()
        let path = directory.appendingPathComponent("logs/vigil.log").path
        let sink = RotatingFileSink(path: path, minimumLevel: .trace, maximumBytes: 200, keep: 2)
        for index in 0..<40 { sink.write("line \(index) " + String(repeating: "x", count: 30) + "\n") }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("logs").path).sorted()
        #expect(files == ["vigil.log", "vigil.log.1", "vigil.log.2"])
        for file in files {
            let size = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("logs/\(file)").path)[.size] as? Int ?? 0
            #expect(size <= 200)
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("line 39 "))
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aFullDiskStopsTheSinkOnceAndNeverTheProgram() {
        let reports = MemorySink()
        let sink = RotatingFileSink(path: "/dev/full", minimumLevel: .trace, maximumBytes: .max, keep: 0, report: { reports.write($0 + "\n") })
        for _ in 0..<5 { sink.write("a line\n") }
        #expect(sink.hasFailed)
        #expect(reports.text.split(separator: "\n").count == 1, "said once: \(reports.text)")
        #expect(reports.text.contains("/dev/full"))
    }

    @Test func anUnwritableDirectoryIsReportedOnce() throws {
        let reports = MemorySink()
        let sink = RotatingFileSink(path: "/proc/vigil-cannot-write/vigil.log", minimumLevel: .trace, report: { reports.write($0 + "\n") })
        let log = logger(sinks: [sink])
        for _ in 0..<3 { log.error("still running") }
        #expect(sink.hasFailed)
        #expect(reports.text.split(separator: "\n").count == 1)
    }
}

/// Vigil's own code logs interpolated values only through `logger.privacy`, where they are private
/// by default; a plain `logger.info("... \(x)")` would write x as public text.
@Suite("Source rules")
struct LoggingSourceRuleTests {
    @Test func noPlainInterpolatedLogMessagesInSources() throws {
        let sources = TestPaths.root.appendingPathComponent("Sources")
        let enumerator = FileManager.default.enumerator(atPath: sources.path)
        var offenders: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOfFile: sources.appendingPathComponent(relative).path, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                if line.range(of: #"logger\.(trace|debug|info|notice|warning|error|critical)\("[^"]*\\\("#, options: .regularExpression) != nil {
                    offenders.append("\(relative):\(number + 1)")
                }
            }
        }
        #expect(offenders.isEmpty, "log through logger.privacy: \(offenders)")
    }
}

extension LogWriterTests {
    /// The seeds' log.blank-filtered-messages: what a filter leaves out is a `-` line, with
    /// neither its text nor its metadata.
    @Test func blankFilteredMessagesKeepTheLineNotItsText() {
        let sink = MemorySink()
        let log = logger(
            {
                $0.omitMatching = ["noisy"]
                $0.blankFilteredMessages = true
            }, sinks: [sink])
        log.privacy.info("a noisy \(public: "detail")", metadata: ["host": .public("example.org")])
        log.info("kept")
        let lines = sink.text.split(separator: "\n")
        #expect(
            lines.count == 2 && lines[0].contains("info vigil.test: - (") && !sink.text.contains("detail") && !sink.text.contains("example.org"), "\(sink.text)"
        )
        let quiet = MemorySink()
        logger({ $0.omitMatching = ["noisy"] }, sinks: [quiet]).info("a noisy line")
        #expect(quiet.text.isEmpty)
    }

    /// The seeds' log.colored: the level as a coloured mark in text lines, JSON unchanged.
    @Test func coloredLinesShowAMarkForTheLevel() {
        let sink = MemorySink()
        logger({ $0.colored = true }, sinks: [sink]).error("boom")
        #expect(sink.text.contains("Z \u{1F534} vigil.test: boom"), "\(sink.text)")
        let json = MemorySink()
        logger(
            {
                $0.colored = true
                $0.format = .json
            }, sinks: [json]
        ).error("boom")
        #expect(json.text.contains("\"level\":\"error\""))
    }

    /// The seeds' log.synchronous: the file sink still writes every line (and syncs it).
    @Test func aSynchronousFileSinkWritesEveryLine() throws {
        let path = try TestPaths.temporaryDirectory().appendingPathComponent("logs/vigil.log").path
        let sink = RotatingFileSink(path: path, minimumLevel: .trace, synchronous: true)
        logger({ $0.synchronous = true }, sinks: [sink]).warning("durable")
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("warning vigil.test: durable"))
        #expect(!sink.hasFailed)
    }
}
