/// A typed setting value.
public enum SettingValue: Sendable, Hashable, CustomStringConvertible {
    case bool(Bool)
    case integer(Int)
    case string(String)
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

    public var boolValue: Bool? { if case .bool(let value) = self { return value } else { return nil } }
    public var integerValue: Int? { if case .integer(let value) = self { return value } else { return nil } }
    public var stringValue: String? { if case .string(let value) = self { return value } else { return nil } }
    public var stringsValue: [String]? { if case .strings(let value) = self { return value } else { return nil } }
}
