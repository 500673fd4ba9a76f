/// A setting's key together with the type of its value, so that a call site reads
/// `settings[.plainHTTPPolicy]` and gets a `String?`: a misspelt key does not compile, and a value
/// of the wrong type cannot be asked for. The keys are in `Setting+Keys.swift`, one per entry of
/// ``SettingsCatalog``; a test fails for a catalogue entry without a key, or a key no code reads.
public struct Setting<Value: SettingReadable>: Sendable, Hashable, ExpressibleByStringLiteral {
    /// The flat key, for example `connection.plain-http-policy`.
    public let key: String

    /// A setting named by its flat key.
    public init(stringLiteral key: String) { self.key = key }

    /// The catalogue's definition of this key.
    public var definition: SettingDefinition? { SettingsCatalog.definition(for: key) }

    /// The catalogue's default for this key, as this type (nil: the key has none).
    public var defaultValue: Value? { definition?.defaultValue.flatMap(Value.read) }

    /// The catalogue's default, for a key that has one: the one place a default is written, read by
    /// the code's own defaults (a key without one is a mistake in the code, stopped here).
    public var catalogueDefault: Value {
        guard let value = defaultValue else { preconditionFailure("\(key) has no default in SettingsCatalog") }
        return value
    }
}

/// A Swift type a setting's value is read as.
public protocol SettingReadable: Sendable {
    /// The value as this type, or nil when it holds another type.
    static func read(_ value: SettingValue) -> Self?
}

extension Bool: SettingReadable {
    /// The value of a boolean setting; nil for any other.
    public static func read(_ value: SettingValue) -> Bool? { value.boolValue }
}

extension Int: SettingReadable {
    /// The value of an integer setting; nil for any other.
    public static func read(_ value: SettingValue) -> Int? { value.integerValue }
}

extension String: SettingReadable {
    /// The value of a text setting; nil for any other.
    public static func read(_ value: SettingValue) -> String? { value.stringValue }
}

extension Array: SettingReadable where Element == String {
    /// The value of a list setting; nil for any other.
    public static func read(_ value: SettingValue) -> [String]? { value.stringsValue }
}

extension Settings {
    /// The value in force for `setting` (nil when unset).
    public subscript<Value>(_ setting: Setting<Value>) -> Value? {
        value(setting.key).flatMap(Value.read)
    }

    /// Whether HTTP requests and answers are logged: `log.http-requests`, or the
    /// `option.log-requests-and-responses` component of `log.enabled-components` (the seeds' name).
    public var logsHTTPExchanges: Bool {
        self[.logHTTPRequests] == true || self[.logEnabledComponents]?.contains(SettingsCatalog.logComponentRequests) == true
    }
}
