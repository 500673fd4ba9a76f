public import VigilText

/// A typed setting value.
public enum SettingValue: Sendable, Hashable, CustomStringConvertible {
    /// A boolean setting's value.
    case bool(Bool)
    /// An integer setting's value.
    case integer(Int)
    /// The value of a string, choice, URL, template or rule setting.
    case string(String)
    /// The value of a list setting (strings, choices, pins, fingerprints, object identifiers).
    case strings([String])

    /// The value as `vigil config get` prints it: lists joined by commas.
    public var description: String {
        switch self {
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .string(let value): return value
        case .strings(let values): return values.joined(separator: ",")
        }
    }

    /// The value as a JSON value.
    public var json: JSONValue {
        switch self {
        case .bool(let value): return .bool(value)
        case .integer(let value): return .number(Double(value))
        case .string(let value): return .string(value)
        case .strings(let values): return .array(values.map(JSONValue.string))
        }
    }

    /// The boolean, or nil when the value is not `.bool`.
    public var boolValue: Bool? { if case .bool(let value) = self { return value } else { return nil } }
    /// The integer, or nil when the value is not `.integer`.
    public var integerValue: Int? { if case .integer(let value) = self { return value } else { return nil } }
    /// The text, or nil when the value is not `.string`.
    public var stringValue: String? { if case .string(let value) = self { return value } else { return nil } }
    /// The list, or nil when the value is not `.strings`.
    public var stringsValue: [String]? { if case .strings(let value) = self { return value } else { return nil } }
}
