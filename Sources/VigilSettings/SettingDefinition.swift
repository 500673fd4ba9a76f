internal import Configuration

/// One setting: its key, type, default and meaning. The catalogue of these
/// (``SettingsCatalog``) is the single source for the code, `vigil config` and docs/settings.md.
public struct SettingDefinition: Sendable, Hashable {
    /// Who may set a key.
    public enum Scope: String, Sendable, Hashable {
        /// Environment, user file and managed file.
        case any
        /// Only the managed file (the lock lists themselves).
        case managedOnly = "managed only"
    }

    /// The flat key, for example `connection.plain-http-policy`.
    public let key: String
    /// The type of the value, and what it may be.
    public let kind: SettingKind
    /// nil when the setting has no default (unset unless a source sets it).
    public let defaultValue: SettingValue?
    /// What it does, in a sentence or two.
    public let summary: String
    /// Who may set the key.
    public let scope: Scope
    /// Secret values are never printed (`vigil config list` shows «set»).
    public let isSecret: Bool

    /// A definition of `key`; any source may set it unless `scope` says otherwise, and it is not secret unless `secret`.
    public init(_ key: String, _ kind: SettingKind, default defaultValue: SettingValue?, _ summary: String, scope: Scope = .any, secret: Bool = false) {
        self.key = key
        self.kind = kind
        self.defaultValue = defaultValue
        self.summary = summary
        self.scope = scope
        self.isSecret = secret
    }

    /// The environment variable for this key: `VIGIL_` plus the key upper-cased, dots and dashes
    /// as underscores. It is swift-configuration's own encoding of ``configKey``, the name the
    /// loader reads, so the two cannot disagree.
    public var environmentVariable: String {
        (try? Self.encoder.value(forKey: configKey, type: .string).encodedKey) ?? ""
    }

    /// The key under the `vigil` prefix, as swift-configuration sees it.
    var configKey: AbsoluteConfigKey { AbsoluteConfigKey(["vigil"] + key.split(separator: ".").map(String.init)) }

    /// An empty environment: used only for its key encoding.
    private static let encoder = EnvironmentVariablesProvider(environmentVariables: [:])

    /// How to show a value of this setting to a person.
    public func display(_ value: SettingValue?) -> String {
        guard let value else { return "(unset)" }
        if isSecret { return "«set»" }
        return value.description
    }
}
