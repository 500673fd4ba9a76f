import Foundation
import Testing
import VigilTestSupport

@Suite("vigil logging", .serialized)
struct LogCommandTests {
    let state: URL
    init() throws { state = try TestPaths.temporaryDirectory() }
    var environment: [String: String?] { ["XDG_STATE_HOME": state.path] }
    var logFile: String { state.appendingPathComponent("vigil/logs/vigil.log").path }

    @Test func logPathFollowsXDGStateHome() throws {
        let result = try CommandRunner.vigil(["log", "path"], environment: environment)
        #expect(result.standardOutput == logFile + "\n")
    }

    @Test func inspectionIsLoggedWithPrivateValuesMasked() throws {
        let server = try TLSTestServer(case: "valid-127.0.0.1")
        defer { server.stop() }
        let result = try CommandRunner.vigil(["inspect", server.url, "--ca-file", TestPaths.caBundle, "--log-level", "debug"], environment: environment)
        #expect(result.status == 0)
        let log = try String(contentsOfFile: logFile, encoding: .utf8)
        #expect(log.contains("notice vigil: Verdict for «private»: trusted"))
        #expect(log.contains("TLS handshake with «private» done: TLSv1.3"))
        #expect(!log.contains("127.0.0.1:\(server.port)"), "the host is private")
        #expect(log.range(of: #"leaf=«private:[0-9a-f]{6}»"#, options: .regularExpression) != nil)
        // --log-level also shows the lines on standard error.
        #expect(result.standardError.contains("Verdict for «private»"))
    }

    @Test func privacyMaskOffShowsValuesAndJSONFormatWorks() throws {
        let result = try CommandRunner.vigil(
            ["inspect", "--file", TestPaths.testcert("valid-127.0.0.1-chain.pem"), "--host", "127.0.0.1", "--ca-file", TestPaths.caBundle, "--log-format", "json"],
            environment: environment.merging(["VIGIL_LOG_PRIVACY_MASK": "false"]) { $1 })
        #expect(result.status == 0)
        let line = try #require(try String(contentsOfFile: logFile, encoding: .utf8).split(separator: "\n").last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == "Verdict for files: trusted")
    }

    @Test func logFileOptionAndClear() throws {
        let custom = state.appendingPathComponent("custom/run.log").path
        _ = try CommandRunner.vigil(["inspect", "--file", TestPaths.testcert("expired-chain.pem"), "--log-file", custom], environment: environment)
        #expect(FileManager.default.fileExists(atPath: custom))
        let cleared = try CommandRunner.vigil(["log", "clear", "--log-file", custom], environment: environment)
        #expect(cleared.status == 0)
        #expect(cleared.standardOutput.contains("removed 1 log file"))
        #expect(!FileManager.default.fileExists(atPath: custom))
    }

    @Test func anUnwritableLogFileNeverStopsTheCommand() throws {
        let result = try CommandRunner.vigil(["inspect", "--file", TestPaths.testcert("valid-127.0.0.1-chain.pem"), "--host", "127.0.0.1", "--ca-file", TestPaths.caBundle, "--log-file", "/dev/full"], environment: environment)
        #expect(result.status == 0)
        #expect(result.standardError.components(separatedBy: "/dev/full").count == 2, "reported once: \(result.standardError)")
    }

    @Test func wrongLogFlagsAreUsageErrors() throws {
        #expect(try CommandRunner.vigil(["inspect", "--file", "x.pem", "--log-level", "loud"]).status == 64)
        #expect(try CommandRunner.vigil(["config", "list", "--log-format", "xml"]).status == 64)
    }
}
