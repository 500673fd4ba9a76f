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
        let directory = value(of: "--fixtures", in: words) ?? (try? SettingsLoader().load())?[.simulatorFixtures] ?? DataLocations.fixtures
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".json") && $0 != "known-gaps.json" }
        return files.compactMap { file -> String? in
            guard let data = FileManager.default.contents(atPath: PathName.join(directory, file)),
                let name = JSONValue.parseObject(Array(data))?["name"]?.string,
                !name.isEmpty,
                name.utf8.allSatisfy({
                    $0 < 0x80
                        && ($0 == 0x2D || $0 == 0x5F || $0 == 0x2E || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0))
                })
            else { return nil }
            return name
        }.sorted()
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
