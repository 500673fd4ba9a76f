import Foundation
import Testing
import VigilTestSupport

/// `vigil config` against temporary user and managed files.
@Suite("vigil config", .serialized)
struct ConfigCommandTests {
    let directory: URL
    var managed: String { directory.appendingPathComponent("managed.json").path }
    var userFile: String { directory.appendingPathComponent("config/vigil/settings.json").path }
    var environment: [String: String?] {
        ["XDG_CONFIG_HOME": directory.appendingPathComponent("config").path, "VIGIL_MANAGED_CONFIG": managed]
    }

    init() throws { directory = try TestPaths.temporaryDirectory() }

    func vigil(_ arguments: [String], extra: [String: String?] = [:]) throws -> CommandResult {
        try CommandRunner.vigil(arguments, environment: environment.merging(extra) { $1 })
    }

    @Test func explainShowsAllFourLayersAndWhichWins() throws {
        try #"{"log.level": "error"}"#.write(toFile: managed, atomically: true, encoding: .utf8)
        #expect(try vigil(["config", "set", "log.level", "warning"]).status == 0)
        let result = try vigil(["config", "explain", "log.level"], extra: ["VIGIL_LOG_LEVEL": "debug"])
        #expect(result.status == 0)
        let out = result.standardOutput
        #expect(out.contains("environment VIGIL_LOG_LEVEL: debug  <- in force"))
        #expect(out.contains("user        \(userFile): \"warning\""))
        #expect(out.contains("managed     \(managed): \"error\""))
        #expect(out.contains("default     built in: info"))
        #expect(out.contains("type:      one of: trace, debug, info, notice, warning, error, critical"))
        // Without the variable, the user file wins; without that, the managed file.
        #expect(try vigil(["config", "get", "log.level"]).standardOutput == "warning\n")
        #expect(try vigil(["config", "unset", "log.level"]).status == 0)
        #expect(try vigil(["config", "get", "log.level"]).standardOutput == "error\n")
    }

    @Test func listShowsEveryKeyWithItsSource() throws {
        let result = try vigil(
            ["config", "list", "--json"], extra: ["VIGIL_LOG_FORMAT": "json", "VIGIL_AUTHENTICATION_OAUTH2_OA2_CLIENT_SECRET": "s3cr3t-value"])
        #expect(result.status == 0)
        let items = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [[String: Any]])
        let format = try #require(items.first { $0["key"] as? String == "log.format" })
        #expect(format["value"] as? String == "json")
        #expect(format["source"] as? String == "environment")
        #expect(items.count > 30)
        #expect(!result.standardOutput.contains("s3cr3t-value"), "a secret setting is never printed")
        let text = try vigil(["config", "list"], extra: ["VIGIL_AUTHENTICATION_OAUTH2_OA2_CLIENT_SECRET": "s3cr3t-value"])
        #expect(!text.standardOutput.contains("s3cr3t-value"))
        #expect(text.standardOutput.contains("log.privacy-mask"))
        let got = try vigil(
            ["config", "get", "authentication-oauth2.oa2-client-secret"], extra: ["VIGIL_AUTHENTICATION_OAUTH2_OA2_CLIENT_SECRET": "s3cr3t-value"])
        #expect(got.standardOutput == "«set»\n", "get masks a secret too")
    }

    @Test func setRefusesLockedAndInvalidValues() throws {
        try #"{"user-settings.disallow": ["connection.plain-http-policy"]}"#.write(toFile: managed, atomically: true, encoding: .utf8)
        let locked = try vigil(["config", "set", "connection.plain-http-policy", "warn"])
        #expect(locked.status == 2)
        #expect(locked.standardError.contains("locked by user-settings.disallow"))
        let invalid = try vigil(["config", "set", "log.level", "loud"])
        #expect(invalid.status == 2)
        #expect(invalid.standardError.contains("expected one of"))
        let unknown = try vigil(["config", "get", "log.levl"])
        #expect(unknown.status == 64)
        #expect(!FileManager.default.fileExists(atPath: userFile))
    }

    /// A typo in a lock never unlocks: every command stops (78) and names the nearest key, so
    /// the user cannot set what the administrator meant to lock.
    @Test func aTypoInALockStopsEveryCommandWithExit78() throws {
        try #"{"user-settings.disallow": ["connection.revocation-polcy"]}"#.write(toFile: managed, atomically: true, encoding: .utf8)
        for arguments in [
            ["config", "set", "connection.revocation-policy", "off"], ["config", "list"], ["inspect", "--file", TestPaths.testcert("valid-127.0.0.1.pem")],
        ] {
            let result = try vigil(arguments)
            #expect(result.status == 78, "\(arguments): \(result.standardError)")
            #expect(result.standardError.contains("did you mean connection.revocation-policy?"), "\(result.standardError)")
        }
        #expect(!FileManager.default.fileExists(atPath: userFile), "nothing was set")
    }

    /// `config list` has a header and a legend, and tells a locked value from an administrator's
    /// default the user may override.
    @Test func listSaysWhichManagedValuesAreLocked() throws {
        try #"{"log.level": "info", "connection.plain-http-policy": "forbidden", "user-settings.disallow": ["connection.plain-http-policy"]}"#.write(
            toFile: managed, atomically: true, encoding: .utf8)
        let text = try vigil(["config", "list"])
        #expect(text.status == 0 && text.standardOutput.hasPrefix("KEY "), "\(text.standardOutput.prefix(200))")
        let lines = text.standardOutput.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("connection.plain-http-policy ") && $0.hasSuffix("[managed] (locked)") }, "\(text.standardOutput)")
        #expect(lines.contains { $0.hasPrefix("log.level ") && $0.hasSuffix("[managed] (you may override)") }, "\(text.standardOutput)")
        #expect(text.standardOutput.contains("(you may override) the administrator's value"), "the legend")
        let json = try vigil(["config", "list", "--json"])
        let items = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(items.first { $0["key"] as? String == "log.level" }?["overridable"] as? Bool == true)
        #expect(items.first { $0["key"] as? String == "connection.plain-http-policy" }?["overridable"] as? Bool == false)
    }

    @Test func brokenManagedFileStopsEveryCommandWithExit78() throws {
        try "{ \"log.level\": ".write(toFile: managed, atomically: true, encoding: .utf8)
        for arguments in [["config", "list"], ["inspect", "--file", TestPaths.testcert("valid-127.0.0.1.pem")]] {
            let result = try vigil(arguments)
            #expect(result.status == 78, "\(arguments)")
            #expect(result.standardError.contains(managed))
            #expect(result.standardError.contains("not valid JSON"))
        }
    }

    @Test func invalidUserValueStopsOtherCommandsButConfigCanFixIt() throws {
        try FileManager.default.createDirectory(atPath: (userFile as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try #"{"log.privacy-mask": "maybe"}"#.write(toFile: userFile, atomically: true, encoding: .utf8)
        let inspect = try vigil(["inspect", "--file", TestPaths.testcert("valid-127.0.0.1.pem")])
        #expect(inspect.status == 78)
        #expect(inspect.standardError.contains("log.privacy-mask"))
        #expect(try vigil(["config", "unset", "log.privacy-mask"]).status == 0)
        #expect(try vigil(["inspect", "--file", TestPaths.testcert("valid-127.0.0.1.pem")]).status == 1)
    }

    @Test func docsCommandPrintsTheCommittedFile() throws {
        let committed = try String(contentsOfFile: TestPaths.root.appendingPathComponent("docs/settings.md").path, encoding: .utf8)
        #expect(try vigil(["config", "docs"]).standardOutput == committed)
    }
}
