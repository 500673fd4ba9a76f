import Foundation
import Testing
import VigilTestSupport

/// Help and man pages a person can follow (issue 39): every command that takes arguments shows
/// examples, every command its exit codes, usage lines stay short, one placeholder per concept;
/// the man pages are named as typed with dashes and carry the same examples and exit codes.
@Suite("help and man pages")
struct HelpTests {
    /// Every leaf command (`account add`) and whether it takes arguments, from the parser's own
    /// description of the tool.
    static func commands() throws -> [(path: String, takesArguments: Bool)] {
        let dump = try CommandRunner.vigil(["--experimental-dump-help"]).standardOutput
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.utf8)) as? [String: Any])
        var found: [(String, Bool)] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            let name = command["commandName"] as? String ?? ""
            let here = path + [name]
            let children = command["subcommands"] as? [[String: Any]] ?? []
            if children.isEmpty, name != "help" {
                let arguments = command["arguments"] as? [[String: Any]] ?? []
                let takes = arguments.contains { ($0["kind"] as? String) == "positional" || (($0["isOptional"] as? Bool) == false) }
                found.append((here.dropFirst().joined(separator: " "), takes))
            }
            for child in children { walk(child, here) }
        }
        walk(root["command"] as? [String: Any] ?? [:], [])
        return found
    }

    @Test func everyCommandSaysItsExitCodesAndShowsExamplesWhenItTakesArguments() throws {
        let commands = try Self.commands()
        #expect(commands.count >= 30)
        for (path, takesArguments) in commands {
            let help = try CommandRunner.vigil(path.split(separator: " ").map(String.init) + ["--help"]).standardOutput
            #expect(help.contains("Exit codes"), "\(path)")
            if takesArguments { #expect(help.contains("Examples:\n"), "\(path) takes arguments and shows no example") }
            let usage = help.split(separator: "\n").drop { !$0.hasPrefix("USAGE:") }.prefix { !$0.isEmpty }
            #expect(!usage.isEmpty, "\(path)")
            for line in usage { #expect(line.count <= 100, "\(path): \(line)") }
            // One placeholder per concept: an account is <account> wherever a command takes one.
            #expect(!help.contains("<id>"), "\(path)")
            for line in help.split(separator: "\n") where line.hasPrefix("    vigil ") {
                #expect(line.count <= 80, "an example wider than a terminal: \(line)")
            }
        }
    }

    @Test func manPagesAreNamedAsTypedAndCarryExamplesExitStatusEnvironmentAndFiles() throws {
        let directory = TestPaths.root.appendingPathComponent("docs/man").path
        for (path, takesArguments) in try Self.commands() {
            let name = "vigil-" + path.replacingOccurrences(of: " ", with: "-")
            let page = try String(contentsOfFile: "\(directory)/\(name).1", encoding: .utf8)
            #expect(page.contains(".Nm \(name)\n") && page.contains(".Dt \(name.uppercased()) 1"), "\(name)")
            #expect(!page.contains(".Ex -std"), "\(name): the real exit codes, not mdoc's boilerplate")
            #expect(page.contains(".Sh EXIT STATUS") && page.contains(".Sh ENVIRONMENT") && page.contains(".Sh FILES"), "\(name)")
            if takesArguments {
                #expect(page.contains(".Sh EXAMPLES"), "\(name)")
                // The man page says what --help says (make man regenerates both from one table).
                let help = try CommandRunner.vigil(path.split(separator: " ").map(String.init) + ["--help"]).standardOutput
                let first = help.split(separator: "\n").first { $0.hasPrefix("    vigil ") }.map { $0.trimmingCharacters(in: .whitespaces) }
                if let first { #expect(page.contains(first), "\(name) is older than its --help: run make man") }
            }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(!names.contains { $0.hasPrefix("vigil.") && $0 != "vigil.1" }, "no page left under its dotted name")
    }
}
