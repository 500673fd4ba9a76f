package import ArgumentParser
import FoundationEssentials
import VigilSettings

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

    /// The scenarios' names: the fixtures' file names, from `--fixtures` on the line or the
    /// installed fixtures (the same place `vigil simulate` reads).
    package static let scenarios = CompletionKind.custom { words, _, _ in
        let directory = value(of: "--fixtures", in: words) ?? DataLocations.fixtures
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix("known-gaps") && !$0.hasPrefix("client-") }.map { String($0.dropLast(5)) }.sorted()
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
