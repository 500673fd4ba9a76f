internal import Configuration
public import FoundationEssentials
import Glibc
import VigilText

/// Reads the four sources and resolves every key: environment, then the user file, then the
/// managed file, then the defaults.
///
/// swift-configuration's `EnvironmentVariablesProvider` reads the environment (its key encoding
/// under the `vigil` prefix gives `VIGIL_CONNECTION_PLAIN_HTTP_POLICY`). The JSON files are
/// read here, because Vigil must list every key a file names (to warn about unknown ones) and
/// say, per key, what each source holds and why a value was refused.
public struct SettingsLoader: Sendable {
    /// The environment read for `VIGIL_` variables.
    public var environment: [String: String]
    /// The user file and managed file to read.
    public var locations: SettingsLocations

    /// A loader for `environment` (by default the process's); `locations` nil: derived from `environment`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, locations: SettingsLocations? = nil) {
        self.environment = environment
        self.locations = locations ?? SettingsLocations(environment: environment)
    }

    /// Loads and resolves. Throws only for a broken managed file: the tool does not start then.
    /// Problems in the user file or the environment are in ``Settings/issues``.
    public func load() throws -> Settings {
        var issues: [SettingsIssue] = []

        // Managed: every problem is fatal.
        let managedPath = locations.managedFile
        var managed: [String: Settings.Layer] = [:]
        if let document = try SettingsFileReader.read(managedPath, source: .managed) {
            var problems: [String] = []
            for (key, json) in document.sorted(by: { $0.key < $1.key }) {
                guard let definition = SettingsCatalog.definition(for: key) else {
                    // A misspelt lock is no lock: the managed file is broken, never a warning.
                    if key.hasPrefix("user-settings") {
                        let nearest = EditDistance.closest(to: key, in: [Setting.userSettingsAllow.key, Setting.userSettingsDisallow.key], limit: 4)
                        problems.append("\(key) is not a Vigil setting" + (nearest.map { " (did you mean \($0)?)" } ?? ""))
                        continue
                    }
                    issues.append(.init(severity: .warning, source: .managed, location: managedPath, key: key, message: "unknown key, ignored"))
                    continue
                }
                switch definition.kind.parse(json: json) {
                case .success(let value):
                    managed[key] = .init(source: .managed, location: managedPath, raw: Self.raw(json), value: value, ignoredBecause: nil)
                case .failure(let problem):
                    problems.append("\(key): \(problem.message)")
                }
            }
            // A lock that names no setting locks nothing: a typo would leave the setting it meant
            // open to the user. Fail closed, naming the nearest key.
            for lockKey in [Setting.userSettingsAllow.key, Setting.userSettingsDisallow.key] {
                // The seeds' keys Vigil does not adopt may be named (a managed file shared with the
                // iOS app): they lock nothing Vigil reads, and are no typo.
                let notAdopted = Set(SettingsCatalog.seedsKeysNotAdopted.flatMap { $0.key.split(separator: ",").map { $0.trimmingWhitespace() } })
                for name in managed[lockKey]?.value?.stringsValue ?? [] where SettingsCatalog.definition(for: name) == nil && !notAdopted.contains(name) {
                    let nearest = EditDistance.closest(to: name, in: SettingsCatalog.all.map(\.key), limit: 3)
                    problems.append("\(lockKey) names \"\(name)\", which is not a Vigil setting" + (nearest.map { " (did you mean \($0)?)" } ?? ""))
                }
            }
            if !problems.isEmpty {
                throw SettingsError(
                    .brokenManagedFile, "The managed configuration \(managedPath) is invalid, so Vigil does not start: " + problems.joined(separator: "; "))
            }
        }
        let locks = Locks(
            allow: managed[Setting.userSettingsAllow.key]?.value?.stringsValue, disallow: managed[Setting.userSettingsDisallow.key]?.value?.stringsValue,
            path: managedPath)

        // User file: problems are reported; a broken file contributes nothing.
        let userPath = locations.userFile
        var user: [String: Settings.Layer] = [:]
        do {
            if let document = try SettingsFileReader.read(userPath, source: .user) {
                for (key, json) in document.sorted(by: { $0.key < $1.key }) {
                    guard let definition = SettingsCatalog.definition(for: key) else {
                        issues.append(.init(severity: .warning, source: .user, location: userPath, key: key, message: "unknown key, ignored"))
                        continue
                    }
                    var layer = Self.layer(.user, location: userPath, key: key, raw: Self.raw(json), parsed: definition.kind.parse(json: json), issues: &issues)
                    if layer.value != nil, let reason = locks.reason(for: definition) {
                        layer.value = nil
                        layer.ignoredBecause = reason
                        issues.append(.init(severity: .warning, source: .user, location: userPath, key: key, message: "ignored: \(reason)"))
                    }
                    user[key] = layer
                }
            }
        } catch let error as SettingsError {
            issues.append(.init(severity: .error, source: .user, location: userPath, key: nil, message: error.reason))
        }

        // Environment, through swift-configuration.
        var env: [String: Settings.Layer] = [:]
        let provider = EnvironmentVariablesProvider(environmentVariables: environment)
        var knownVariables = SettingsLocations.controlVariables
        // Asked of swift-configuration only when a VIGIL_ variable could be a setting: encoding
        // every key's name costs more than the rest of the load, for nothing in the usual case.
        let mayHoldSettings = environment.keys.contains { $0.hasPrefix("VIGIL_") && !knownVariables.contains($0) }
        for definition in SettingsCatalog.all where mayHoldSettings {
            guard let result = try? provider.value(forKey: definition.configKey, type: .string) else { continue }
            knownVariables.insert(result.encodedKey)
            guard case .string(let text)? = result.value?.content else { continue }
            if definition.scope == .managedOnly {
                env[definition.key] = Settings.Layer(
                    source: .environment, location: result.encodedKey, raw: text, value: nil, ignoredBecause: "only the managed file may set it")
                issues.append(
                    .init(
                        severity: .warning, source: .environment, location: result.encodedKey, key: definition.key,
                        message: "ignored: only the managed file may set it"))
            } else {
                var layer = Self.layer(
                    .environment, location: result.encodedKey, key: definition.key, raw: text, parsed: definition.kind.parse(text: text), issues: &issues)
                // A lock holds against the environment as against the user file: the override is
                // ignored (the managed value stays in force) and said so, rather than failing the
                // command, so that a stray variable can neither lift a lock nor break a cron job.
                if layer.value != nil, let reason = locks.reason(for: definition) {
                    layer.value = nil
                    layer.ignoredBecause = reason
                    issues.append(
                        .init(severity: .warning, source: .environment, location: result.encodedKey, key: definition.key, message: "ignored: \(reason)"))
                }
                env[definition.key] = layer
            }
        }
        for name in environment.keys.sorted() where name.hasPrefix("VIGIL_") && !knownVariables.contains(name) {
            issues.append(.init(severity: .warning, source: .environment, location: name, key: nil, message: "not a Vigil setting, ignored"))
        }

        // Resolve: the first usable value, highest precedence first.
        var entries: [String: Settings.Entry] = [:]
        for definition in SettingsCatalog.all {
            var layers = [env[definition.key], user[definition.key], managed[definition.key]].compactMap { $0 }
            if let defaultValue = definition.defaultValue {
                layers.append(.init(source: .default, location: "built in", raw: defaultValue.description, value: defaultValue, ignoredBecause: nil))
            }
            let winner = layers.first { $0.value != nil }
            entries[definition.key] = Settings.Entry(
                definition: definition, value: winner?.value, source: winner?.source ?? .default,
                layers: layers, lockedBecause: locks.reason(for: definition)
            )
        }
        return Settings(entries: entries, issues: issues, locations: locations)
    }

    /// What a user-file or environment source says about one key: the value, or why it was refused
    /// (recorded as an error issue naming the location and key).
    static func layer(
        _ source: SettingsSource, location: String, key: String, raw: String,
        parsed: Result<SettingValue, SettingsProblem>, issues: inout [SettingsIssue]
    ) -> Settings.Layer {
        switch parsed {
        case .success(let value):
            return Settings.Layer(source: source, location: location, raw: raw, value: value, ignoredBecause: nil)
        case .failure(let problem):
            issues.append(.init(severity: .error, source: source, location: location, key: key, message: problem.message))
            return Settings.Layer(source: source, location: location, raw: raw, value: nil, ignoredBecause: "invalid: \(problem.message)")
        }
    }

    static func raw(_ json: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(json)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }
}

/// The managed file's `user-settings.allow` / `user-settings.disallow`.
struct Locks: Sendable {
    var allow: [String]?
    var disallow: [String]?
    var path: String

    /// Why the user file may not set `definition`, or nil when it may.
    func reason(for definition: SettingDefinition) -> String? {
        if definition.scope == .managedOnly { return "only the managed file may set it" }
        if let disallow, disallow.contains(definition.key) { return "locked by user-settings.disallow in \(path)" }
        if let allow, !allow.contains(definition.key) { return "locked: not in user-settings.allow in \(path)" }
        return nil
    }
}
