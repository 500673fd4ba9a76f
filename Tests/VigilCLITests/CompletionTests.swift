import Foundation
import Testing
import VigilTestSupport

/// Shell completion (issue 39): files where a path goes, the words an option takes, setting keys,
/// scenario names and account ids; tried in bash, and in fish and zsh where they are installed.
@Suite("shell completion", .serialized)
struct CompletionTests {
    let directory: String
    let database: String

    init() throws {
        directory = try TestPaths.temporaryDirectory().path
        database = directory + "/vigil.sqlite"
    }

    /// What bash offers for the last word of `words`, with the script vigil generates.
    func bash(_ words: [String], environment: [String: String] = [:]) throws -> [String] {
        let script = directory + "/vigil.bash"
        try CommandRunner.vigil(["--generate-completion-script", "bash"]).standardOutput.write(toFile: script, atomically: true, encoding: .utf8)
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let program = """
            source '\(script)'
            COMP_WORDS=(\(quoted)); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
            _vigil vigil "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let vigilDirectory = URL(fileURLWithPath: TestPaths.vigilBinary).deletingLastPathComponent().path
        let result = try CommandRunner.run(
            "/bin/bash", ["-c", program],
            environment: CommandRunner.hermetic(["PATH": vigilDirectory + ":/usr/bin:/bin"].merging(environment) { $1 }), currentDirectory: TestPaths.root.path)
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesWordsFilesKeysScenariosAndAccounts() async throws {
        #expect(try bash(["vigil", "account", "add", "--method", ""]) == ["basic", "oauth2", "openid-connect", "login-flow-v2"])
        #expect(try bash(["vigil", "inspect", "--profile", ""]) == ["webpki", "rfc5280"])
        #expect(try bash(["vigil", "inspect", "--ca-file", "testcerts/ca-bun"]) == ["testcerts/ca-bundle.pem"])
        #expect(try bash(["vigil", "config", "get", "connection.plain-h"]) == ["connection.plain-http-policy"])
        #expect(try bash(["vigil", "simulate", "--scenario", "mitm-trusted-ca"]) == ["mitm-trusted-ca", "mitm-trusted-ca-pinned"])
        #expect(try bash(["vigil", "account", "show", "--database", database, ""]).isEmpty, "no database: nothing, and none is created")
        #expect(!FileManager.default.fileExists(atPath: database))
        try await withRunningSimulator("basic-only") { (running) async throws in
            let added = try await CommandRunner.vigilDetached(
                ["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle, "--database", database],
                input: Data("alice-test-password\n".utf8))
            #expect(added.status == 0, "\(added.standardError)")
            let listed = try await CommandRunner.vigilDetached(["account", "list", "--json", "--database", database]).standardOutput
            let id = try #require((try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]])?.first?["id"] as? String)
            #expect(try bash(["vigil", "account", "show", "--database", database, ""]) == [id])
            #expect(try bash(["vigil", "account", "check", "--database", database, String(id.prefix(4))]) == [id])
            #expect(
                try await CommandRunner.vigilDetached(["account", "remove", id, "--yes", "--ca-file", TestPaths.caBundle, "--database", database]).status == 0)
        }
    }

    /// Scenario names are the fixtures' own `name` fields, in the directory the setting
    /// `host-simulator.fixtures` names (a file name is not a scenario's name; a hostile name is not offered).
    @Test func scenarioNamesFollowTheFixturesSetting() throws {
        let fixtures = directory + "/my-fixtures"
        try FileManager.default.createDirectory(atPath: fixtures, withIntermediateDirectories: true)
        try #"{"name": "corporate-proxy-lab"}"#.write(toFile: fixtures + "/lab.json", atomically: true, encoding: .utf8)
        try #"{"name": "corporate-$(touch pwned)"}"#.write(toFile: fixtures + "/hostile.json", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: directory + "/config/vigil", withIntermediateDirectories: true)
        try #"{"host-simulator.fixtures": "\#(fixtures)"}"#.write(toFile: directory + "/config/vigil/settings.json", atomically: true, encoding: .utf8)
        let configured = ["XDG_CONFIG_HOME": directory + "/config"]
        #expect(try bash(["vigil", "simulate", "--scenario", "corporate"], environment: configured) == ["corporate-proxy-lab"])
        #expect(try bash(["vigil", "simulate", "--scenario", "mitm-trusted-ca"], environment: configured).isEmpty, "not the installed fixtures")
        #expect(try bash(["vigil", "simulate", "--fixtures", fixtures, "--scenario", "lab"]).isEmpty, "the file name is not the scenario's name")
    }

    /// Completion only looks at a database: a file named by --database that is not Vigil's is
    /// left byte for byte and mode for mode as it was (no migration, no tightening).
    @Test func completionNeverChangesADatabase() throws {
        let foreign = directory + "/other.sqlite"
        #expect(try CommandRunner.run("/usr/bin/sqlite3", [foreign, "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine');"]).status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: foreign)
        let before = try Data(contentsOf: URL(fileURLWithPath: foreign))
        #expect(try bash(["vigil", "account", "show", "--database", foreign, ""]).isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: foreign)) == before)
        let mode = try FileManager.default.attributesOfItem(atPath: foreign)[.posixPermissions] as? Int
        #expect(mode == 0o644)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/fish"), "fish is not installed"))
    func fishCompletesWordsFilesAndKeys() throws {
        let script = directory + "/vigil.fish"
        try CommandRunner.vigil(["--generate-completion-script", "fish"]).standardOutput.write(toFile: script, atomically: true, encoding: .utf8)
        func complete(_ line: String) throws -> [String] {
            let result = try CommandRunner.run(
                "/usr/bin/fish", ["--no-config", "-c", "source '\(script)'; complete -C '\(line)'"], currentDirectory: TestPaths.root.path)
            return result.standardOutput.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        #expect(try complete("vigil account add --method ") == ["basic", "oauth2", "openid-connect", "login-flow-v2"])
        #expect(try complete("vigil config set connection.plain-h") == ["connection.plain-http-policy"])
        #expect(try complete("vigil inspect --ca-file testcerts/ca-bun") == ["testcerts/ca-bundle.pem"])
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh"), "zsh is not installed"))
    func zshLoadsTheScript() throws {
        let script = directory + "/_vigil"
        try CommandRunner.vigil(["--generate-completion-script", "zsh"]).standardOutput.write(toFile: script, atomically: true, encoding: .utf8)
        let loaded = try CommandRunner.run(
            "/usr/bin/zsh", ["-f", "-c", "autoload -U compinit; compinit -u -d '\(directory)/zcompdump'; source '\(script)' && echo loaded"])
        #expect(loaded.status == 0 && loaded.standardOutput.contains("loaded"), "\(loaded.standardError)")
        let text = try String(contentsOfFile: script, encoding: .utf8)
        #expect(text.contains("('basic' 'oauth2' 'openid-connect' 'login-flow-v2')") && text.contains("'connection.plain-http-policy'"))
        #expect(text.contains("---completion account show"), "account ids are asked of vigil at completion time")
    }
}
