import ArgumentParser
import FoundationEssentials
import Glibc
import VigilCommandLine
import VigilLogging
import VigilSettings
import VigilText

extension Vigil {
    struct Config: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config",
            abstract: "Show and change settings (environment > user file > managed file > defaults).",
            subcommands: [List.self, Get.self, Explain.self, Set.self, Unset.self, Docs.self]
        )
    }
}

/// A key argument that must name a setting.
struct SettingKeyArgument: ParsableArguments {
    @Argument(help: ArgumentHelp("The setting key, for example connection.plain-http-policy.", valueName: "key"), completion: Completions.settingKeys)
    var key: String

    func validate() throws {
        guard SettingsCatalog.definition(for: key) != nil else {
            let close = SettingsCatalog.all.map(\.key).filter { $0.contains(key) || key.contains($0.split(separator: ".").last.map(String.init) ?? "~") }
            throw ValidationError(
                "\(key) is not a Vigil setting." + (close.isEmpty ? " See vigil config list." : " Did you mean: \(close.prefix(3).joined(separator: ", "))?"))
        }
    }
}

extension Vigil.Config {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Every setting, its value and the source it came from.",
            usage: CommandHelp.usage("config list"),
            discussion: CommandHelp.discussion("config list"))
        @OptionGroup(title: "Log options") var logOptions: LogOptions
        @Flag(help: "Print JSON: an array of {key, value, source, type, locked}.")
        var json = false

        func run() throws {
            let (settings, _) = try CommandContext.start(logOptions, reporting: true)
            if json {
                let items: [JSONValue] = settings.orderedEntries.map { entry in
                    var object: [String: JSONValue] = [
                        "key": .string(entry.definition.key),
                        "source": .string(entry.source.rawValue),
                        "type": .string(entry.definition.kind.description),
                        "locked": .bool(entry.isLocked),
                        // The administrator's value, which the user file or the environment may override.
                        "overridable": .bool(entry.source == .managed && !entry.isLocked),
                    ]
                    if entry.definition.isSecret {
                        object["value"] = entry.value == nil ? .null : .string("«set»")
                    } else {
                        object["value"] = entry.value?.json ?? .null
                    }
                    return .object(object)
                }
                print(try JSONOutput.text(JSONValue.array(items)))
                return
            }
            let width = SettingsCatalog.all.map(\.key.count).max() ?? 40
            print("\("KEY".padded(to: width))  VALUE  [SOURCE]  (LOCK)")
            for entry in settings.orderedEntries {
                let key = entry.definition.key.padded(to: width)
                let value = entry.definition.display(entry.value)
                print("\(key)  \(value)  [\(entry.source.rawValue)]\(Self.mark(entry))")
            }
            print(
                SafeText.escaped(
                    """

                    [SOURCE]: [environment] a VIGIL_ variable; [user] your file \(settings.locations.userFile); [managed] the administrator's file \
                    \(settings.locations.managedFile); [default] built in.
                    (LOCK): (locked) the administrator forbids changing it (user-settings.allow or .disallow); (managed only) only the \
                    administrator's file may set it; (you may override) the administrator's value, a default your file or a VIGIL_ \
                    variable may change; none: yours to set. vigil config explain KEY says more.
                    """))
        }

        /// The lock mark of `config list`'s text (its legend says what each means).
        static func mark(_ entry: Settings.Entry) -> String {
            if entry.definition.scope == .managedOnly { return " (managed only)" }
            if entry.isLocked { return " (locked)" }
            return entry.source == .managed ? " (you may override)" : ""
        }
    }

    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "get", abstract: "Print a setting's value alone, for scripts (lists comma-separated; nothing when unset; a secret shows as «set»).",
            usage: CommandHelp.usage("config get"),
            discussion: CommandHelp.discussion("config get"))
        @OptionGroup(title: "Log options") var logOptions: LogOptions
        @OptionGroup var argument: SettingKeyArgument

        func run() throws {
            let (settings, _) = try CommandContext.start(logOptions, reporting: true)
            guard let entry = settings[argument.key] else { return }
            // A secret (the OAuth2 client secret) is never printed, not even to a script.
            if let value = entry.value { print(entry.definition.display(value)) }
        }
    }

    struct Explain: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "explain", abstract: "What a setting does, its type and default, which source won and what each source says.",
            usage: CommandHelp.usage("config explain"),
            discussion: CommandHelp.discussion("config explain"))
        @OptionGroup(title: "Log options") var logOptions: LogOptions
        @OptionGroup var argument: SettingKeyArgument

        func run() throws {
            let (settings, _) = try CommandContext.start(logOptions, reporting: true)
            guard let entry = settings[argument.key] else { return }
            let definition = entry.definition
            print(definition.key)
            print("  \(definition.summary)")
            print("  type:      \(definition.kind.description)")
            print("  default:   \(definition.defaultValue.map { definition.display($0) } ?? "(unset)")")
            print("  value:     \(definition.display(entry.value))  (from \(entry.source.rawValue))")
            if definition.scope == .any { print("  variable:  \(definition.environmentVariable)") }
            let open =
                entry.source == .managed
                ? "no: the administrator's value is a default; your file or a VIGIL_ variable may override it (the managed file's user-settings.disallow would lock it)"
                : "no"
            print("  locked:    \(entry.lockedBecause.map { "yes, \($0)" } ?? open)")
            print("  sources, highest precedence first:")
            let winner = entry.layers.first { $0.value != nil }
            for source in SettingsSource.allCases {
                let layer = entry.layers.first { $0.source == source }
                let name = source.rawValue.padded(to: 11)
                guard let layer else {
                    let location: String
                    switch source {
                    case .environment: location = definition.scope == .any ? definition.environmentVariable : "(not read)"
                    case .user: location = settings.locations.userFile
                    case .managed: location = settings.locations.managedFile
                    case .default: location = "built in"
                    }
                    print("    \(name) \(location): not set")
                    continue
                }
                let shown = definition.isSecret ? "«set»" : layer.raw
                var line = "    \(name) \(layer.location): \(shown)"
                if let reason = layer.ignoredBecause { line += "  (ignored: \(reason))" }
                if let winner, winner.source == layer.source { line += "  <- in force" }
                print(line)
            }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set a key in the user settings file (written atomically; locked keys are refused).",
            usage: CommandHelp.usage("config set"),
            discussion: CommandHelp.discussion("config set"))
        @OptionGroup(title: "Log options") var logOptions: LogOptions
        @OptionGroup var argument: SettingKeyArgument
        @Argument(help: "The value: true/false, a number, text, or a comma-separated or JSON list.")
        var value: String

        func run() throws {
            let (settings, _) = try CommandContext.start(logOptions, reporting: true)
            do {
                let written = try SettingsEditor(settings: settings).set(argument.key, to: value)
                let definition = SettingsCatalog.definition(for: argument.key)
                print("\(argument.key) = \(definition?.display(written) ?? written.description)  (in \(settings.locations.userFile))")
                if let entry = settings[argument.key], entry.source == .environment {
                    StandardStream.writeError("vigil: warning: \(entry.definition.environmentVariable) is set and overrides the user file.\n")
                }
            } catch {
                throw CommandFailure(error)
            }
        }
    }

    struct Unset: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "unset", abstract: "Remove a key from the user settings file.",
            usage: CommandHelp.usage("config unset"),
            discussion: CommandHelp.discussion("config unset"))
        @OptionGroup(title: "Log options") var logOptions: LogOptions
        @OptionGroup var argument: SettingKeyArgument

        func run() throws {
            let (settings, _) = try CommandContext.start(logOptions, reporting: true)
            do {
                let removed = try SettingsEditor(settings: settings).unset(argument.key)
                print(removed ? "\(argument.key) removed from \(settings.locations.userFile)" : "\(argument.key) was not set in \(settings.locations.userFile)")
            } catch {
                throw CommandFailure(error)
            }
        }
    }

    struct Docs: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "docs", abstract: "Print docs/settings.md, generated from the key definitions.",
            usage: CommandHelp.usage("config docs"),
            discussion: CommandHelp.discussion("config docs"))
        @OptionGroup(title: "Log options") var logOptions: LogOptions
        func run() throws {
            print(SettingsDocumentation.markdown(), terminator: "")
        }
    }
}
