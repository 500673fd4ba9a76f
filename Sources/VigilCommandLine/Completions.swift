package import ArgumentParser
import FoundationEssentials
import VigilPaths
import VigilSettings
import VigilText

/// What a shell completes for Vigil's arguments (bash, zsh and fish: swift-argument-parser writes
/// the scripts from these): files where a path goes, the words an option takes, setting keys,
/// scenario names and account ids. One place, so that every command offers the same.
package enum Completions {
    /// A PEM, DER or other file.
    package static let file = CompletionKind.file()
    /// `--method`.
    package static let methods = CompletionKind.list(["basic", "oauth2", "openid-connect", "login-flow-v2"])
    /// `--profile`.
    package static let profiles = CompletionKind.list(["webpki", "rfc5280"])
    /// Every setting's key (`vigil config get|set|unset|explain`).
    package static let settingKeys = CompletionKind.list(SettingsCatalog.all.map(\.key))

    /// The scenarios' names as the simulator knows them (each fixture's `name` field), in the
    /// fixtures directory the command would use: `--fixtures` on the line, else the setting
    /// `host-simulator.fixtures`, else the fixtures installed with Vigil. Names that are not plain
    /// words are not offered to the shell.
    package static let scenarios = CompletionKind.custom { words, _, _ in
        // As the command picks it: --fixtures, the setting, the installed fixtures.
        let directory = SimulatorPaths.fixturesDirectory(
            given: value(of: "--fixtures", in: words), setting: (try? SettingsLoader().load())?[.simulatorFixtures])
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".json") && $0 != "known-gaps.json" }
        return files.compactMap { file -> String? in
            guard let data = FileManager.default.contents(atPath: PathName.join(directory, file)),
                let name = JSONValue.parseObject(Array(data))?["name"]?.string, isPlainWord(name)
            else { return nil }
            return name
        }.sorted()
    }

    /// Text a shell takes as one plain word, safe to offer: ASCII letters, digits and `._-+:`.
    /// A scenario's name or an account's label is the user's (or a fixture's) text; anything else
    /// is not offered.
    package static func isPlainWord(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-+:".unicodeScalars.contains($0)) }
    }

    /// The value after `option` on the command line being completed (`--database FILE`).
    package static func value(of option: String, in words: [String]) -> String? {
        for (index, word) in words.enumerated() {
            if word == option, index + 1 < words.count { return words[index + 1] }
            if word.hasPrefix(option + "=") { return String(word.dropFirst(option.count + 1)) }
        }
        return nil
    }
}
