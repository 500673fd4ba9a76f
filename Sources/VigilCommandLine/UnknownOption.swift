package import ArgumentParser
import FoundationEssentials
import VigilText

/// The first option on a command line that the command it is given to does not have.
///
/// swift-argument-parser runs a command's `validate()` before it looks for options nobody used,
/// so `vigil inspect --bogus` would say "Give a URL" instead of naming `--bogus`. When parsing
/// fails, the launcher asks this type first: a flag the user mistyped is the error to show.
/// The option names come from the parser's own description of the tool
/// (`--experimental-dump-help`), so they cannot drift from the commands.
package struct UnknownOption: Equatable, Sendable {
    /// The option as given, without a `=value` (`--bogus`, `-q`).
    package var spelling: String
    /// The command path it was given to (`["vigil", "inspect"]`).
    package var command: [String]
    /// The command's option closest to it, when one is a slip of the keyboard away (`--ca-file`
    /// for `--ca-flie`).
    package var suggestion: String? = nil

    /// The first unknown option in `arguments` (without the executable's name), or nil.
    package static func find(in arguments: [String], root: any ParsableCommand.Type) -> UnknownOption? {
        guard let tool = describe(root) else { return nil }
        var node = tool
        var path = [tool.commandName]
        var names = node.optionNames
        var index = 0
        // Subcommands come first (`vigil account check ...`); their ancestors' options count too.
        while index < arguments.count, let child = node.subcommands?.first(where: { $0.commandName == arguments[index] }) {
            node = child
            path.append(child.commandName)
            names.formUnion(child.optionNames)
            index += 1
        }
        names.formUnion(["--help", "-h", "--version", "--experimental-dump-help", "--generate-completion-script"])
        for argument in arguments[index...] {
            if argument == "--" { break }
            guard argument.hasPrefix("-"), argument.count > 1, !Self.isNumber(argument) else { continue }
            if argument.hasPrefix("--") {
                let name = String(argument.prefix { $0 != "=" })
                if !names.contains(name) { return UnknownOption(spelling: name, command: path, suggestion: closest(to: name, in: names)) }
            } else if !names.contains(String(argument.prefix { $0 != "=" })) {
                // A group of short flags (`-yv`): each letter must be a flag of the command.
                for letter in argument.dropFirst() where !names.contains("-\(letter)") {
                    return UnknownOption(spelling: "-\(letter)", command: path)
                }
            }
        }
        return nil
    }

    /// `Error: Unknown option '--bogus'` in place of the first line of the parser's own message
    /// (`fullMessage`), which goes on with the command's usage and where its help is.
    package func message(replacingFirstLineOf fullMessage: String) -> String {
        let rest = fullMessage.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().first.map(String.init) ?? ""
        // The parser's `Help:` line was about its own error (a missing argument), not this one.
        let lines = rest.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("Help:") }
        let hint = suggestion.map { " (did you mean '\($0)'?)" } ?? ""
        return "Error: Unknown option '\(spelling)'\(hint)\n" + lines.joined(separator: "\n")
    }

    private static func isNumber(_ argument: String) -> Bool { Double(argument) != nil }

    /// The long option nearest to `name` (VigilText's EditDistance: at most two edits away, and
    /// no other as near).
    static func closest(to name: String, in names: Set<String>) -> String? {
        EditDistance.closest(to: name, in: names.filter { $0.hasPrefix("--") })
    }

    /// The tool as the parser describes it; nil if it cannot (never for Vigil's commands).
    private static func describe(_ root: any ParsableCommand.Type) -> CommandDescription? {
        do {
            _ = try root.parseAsRoot(["--experimental-dump-help"])
            return nil
        } catch {
            let json = root.fullMessage(for: error)
            return try? JSONDecoder().decode(ToolDescription.self, from: Data(json.utf8)).command
        }
    }

    /// The parts of `--experimental-dump-help` this check reads.
    private struct ToolDescription: Decodable {
        var command: CommandDescription
    }

    private struct CommandDescription: Decodable {
        struct Argument: Decodable {
            struct Name: Decodable {
                var kind: String
                var name: String
            }
            var names: [Name]?
        }
        var commandName: String
        var arguments: [Argument]?
        var subcommands: [CommandDescription]?

        var optionNames: Set<String> {
            var names: Set<String> = []
            for argument in arguments ?? [] {
                for name in argument.names ?? [] {
                    // `short` and `longWithSingleDash` take one dash, `long` two.
                    names.insert((name.kind == "long" ? "--" : "-") + name.name)
                }
            }
            return names
        }
    }
}
