import Foundation

/// A JSON value that keeps booleans, numbers and strings apart (JSONSerialization on Linux
/// does not), for precise validation of settings files.
public enum JSONValue: Sendable, Hashable, Codable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Any number, integers included.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, by member name.
    case object([String: JSONValue])

    /// Decodes any JSON value; throws `DecodingError` when it is none of them.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value; a whole number under 1e15 in magnitude is written as an integer.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value == value.rounded(), abs(value) < 1e15 { try container.encode(Int(value)) } else { try container.encode(value) }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// What kind of JSON value this is, for messages.
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "a list"
        case .object: return "an object"
        }
    }

    /// Nested objects flattened to dotted keys (`{"log": {"level": "info"}}` gives `log.level`);
    /// keys that already contain dots are kept as they are.
    func flattened(prefix: String = "") -> [String: JSONValue] {
        guard case .object(let members) = self else { return prefix.isEmpty ? [:] : [prefix: self] }
        var result: [String: JSONValue] = [:]
        for (name, value) in members {
            let key = prefix.isEmpty ? name : prefix + "." + name
            if case .object = value { result.merge(value.flattened(prefix: key)) { $1 } } else { result[key] = value }
        }
        return result
    }
}
