import Foundation
import Testing
import VigilTestSupport

@Suite("vigil logging", .serialized, .timeLimit(.minutes(3)))
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

    /// A failed command leaves a record in the log file for the administrator: at error level (a
    /// refusal at warning), its error masked to its type and code, the host private; the terminal
    /// gets the command's own message once, not the record again.
    @Test func aFailureIsLoggedForTheAdministratorAndShownOnce() throws {
        let unreachable = try CommandRunner.vigil(["inspect", "https://127.0.0.1:1", "--timeout", "2"], environment: environment)
        #expect(unreachable.status == 2)
        let log = try String(contentsOfFile: logFile, encoding: .utf8)
        #expect(log.contains("error vigil: vigil inspect failed (exit 2): «private»"), "\(log)")
        #expect(log.contains("HTTPError connection-refused"), "the error, masked to its type and code: \(log)")
        #expect(!log.contains("127.0.0.1:1"))
        #expect(unreachable.standardError.components(separatedBy: "\n").filter { !$0.isEmpty }.count == 1, "\(unreachable.standardError)")
        #expect(!unreachable.standardError.contains("failed (exit"))

        // A refusal (the administrator locked the server to another URL): warning level.
        var locked = environment
        locked["VIGIL_BOOKMARK_DEFAULT_URL"] = "https://cloud.example.org"
        locked["VIGIL_BOOKMARK_URL_EDITABLE"] = "false"
        let refused = try CommandRunner.vigil(["account", "add", "https://elsewhere.example.net", "--user", "alice"], environment: locked)
        #expect(refused.status == 1, "\(refused.standardError)")
        #expect(try String(contentsOfFile: logFile, encoding: .utf8).contains("warning vigil: vigil account add failed (exit 1)"))
    }

    @Test func privacyMaskOffShowsValuesAndJSONFormatWorks() throws {
        let result = try CommandRunner.vigil(
            [
                "inspect", "--file", TestPaths.testcert("valid-127.0.0.1-chain.pem"), "--host", "127.0.0.1", "--ca-file", TestPaths.caBundle, "--log-format",
                "json",
            ],
            environment: environment.merging(["VIGIL_LOG_PRIVACY_MASK": "false"]) { $1 })
        #expect(result.status == 0)
        let line = try #require(try String(contentsOfFile: logFile, encoding: .utf8).split(separator: "\n").last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["message"] as? String == "Verdict for files: trusted")
    }

    @Test func logLevelOffAndEnabledComponentsChooseTheWriters() throws {
        let arguments = ["inspect", "--file", TestPaths.testcert("valid-127.0.0.1-chain.pem"), "--host", "127.0.0.1", "--ca-file", TestPaths.caBundle]
        #expect(try CommandRunner.vigil(arguments, environment: environment).status == 0)
        #expect(FileManager.default.fileExists(atPath: logFile), "by default the file writer is on")
        try FileManager.default.removeItem(atPath: logFile)

        let off = try CommandRunner.vigil(arguments, environment: environment.merging(["VIGIL_LOG_LEVEL": "off"]) { $1 })
        #expect(off.status == 0 && off.standardOutput.contains("TRUSTED"))
        #expect(!FileManager.default.fileExists(atPath: logFile), "log.level off writes no log file")

        let stderrOnly = try CommandRunner.vigil(
            arguments + ["--log-level", "debug"],
            environment: environment.merging(["VIGIL_LOG_ENABLED_COMPONENTS": "writer.stderr"]) { $1 })
        #expect(stderrOnly.status == 0 && stderrOnly.standardError.contains("Verdict for"), "\(stderrOnly.standardError)")
        #expect(!FileManager.default.fileExists(atPath: logFile), "writer.file is not enabled")

        let fileOnly = try CommandRunner.vigil(
            arguments + ["--log-level", "debug", "--log-file", logFile],
            environment: environment.merging(["VIGIL_LOG_ENABLED_COMPONENTS": "writer.file"]) { $1 })
        #expect(FileManager.default.fileExists(atPath: logFile), "--log-file switches the file writer on")
        #expect(fileOnly.standardError.contains("Verdict for"), "--log-level switches standard error on")
    }

    @Test func theLogAndTheDatabaseAreKeptPrivateAndNoSymlinkIsFollowed() throws {
        let arguments = ["inspect", "--file", TestPaths.testcert("valid-127.0.0.1-chain.pem"), "--host", "127.0.0.1", "--ca-file", TestPaths.caBundle]
        try FileManager.default.createDirectory(atPath: (logFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: logFile, contents: Data("old line\n".utf8), attributes: [.posixPermissions: 0o644])
        #expect(try CommandRunner.vigil(arguments, environment: environment).status == 0)
        #expect((try FileManager.default.attributesOfItem(atPath: logFile)[.posixPermissions] as? NSNumber)?.intValue == 0o600, "a wider log file is tightened")

        let target = state.appendingPathComponent("elsewhere.txt").path
        try FileManager.default.removeItem(atPath: logFile)
        try FileManager.default.createSymbolicLink(atPath: logFile, withDestinationPath: target)
        let linked = try CommandRunner.vigil(arguments, environment: environment)
        #expect(linked.status == 0 && linked.standardError.contains("symbolic link"), "\(linked.standardError)")
        #expect(!FileManager.default.fileExists(atPath: target), "the link is not followed")

        let database = state.appendingPathComponent("data/vigil.sqlite").path
        #expect(try CommandRunner.vigil(["account", "list", "--database", database], environment: environment).status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: database)
        #expect(try CommandRunner.vigil(["account", "list", "--database", database], environment: environment).status == 0)
        #expect(
            (try FileManager.default.attributesOfItem(atPath: database)[.posixPermissions] as? NSNumber)?.intValue == 0o600, "a wider database is tightened")
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
        let result = try CommandRunner.vigil(
            [
                "inspect", "--file", TestPaths.testcert("valid-127.0.0.1-chain.pem"), "--host", "127.0.0.1", "--ca-file", TestPaths.caBundle, "--log-file",
                "/dev/full",
            ], environment: environment)
        #expect(result.status == 0)
        #expect(result.standardError.components(separatedBy: "/dev/full").count == 2, "reported once: \(result.standardError)")
    }

    @Test func wrongLogFlagsAreUsageErrors() throws {
        #expect(try CommandRunner.vigil(["inspect", "--file", "x.pem", "--log-level", "loud"]).status == 64)
        #expect(try CommandRunner.vigil(["config", "list", "--log-format", "xml"]).status == 64)
    }
}
