import FoundationEssentials
import Glibc

/// A JSON value that keeps booleans, numbers and strings apart, read with FoundationEssentials'
/// `JSONDecoder`: settings files, server answers (status.php, discovery, tokens, JWKS) and logged
/// bodies. Numbers are `Double`s: integers beyond 2^53 lose precision.
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
    public var kindName: String {
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
    public func flattened(prefix: String = "") -> [String: JSONValue] {
        guard case .object(let members) = self else { return prefix.isEmpty ? [:] : [prefix: self] }
        var result: [String: JSONValue] = [:]
        for (name, value) in members {
            let key = prefix.isEmpty ? name : prefix + "." + name
            if case .object = value { result.merge(value.flattened(prefix: key)) { $1 } } else { result[key] = value }
        }
        return result
    }

    /// The JSON text `bytes` as a value; nil when it is not JSON (any value at the top, as RFC 8259).
    public static func parse(_ bytes: some Collection<UInt8>) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    /// The JSON text `bytes` as an object's members; nil when it is not a JSON object.
    public static func parseObject(_ bytes: some Collection<UInt8>) -> [String: JSONValue]? {
        parse(bytes)?.object
    }

    /// The value as JSON text, members sorted by name.
    public func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? Array(encoder.encode(self))) ?? Array("null".utf8)
    }

    /// The string, when this is one.
    public var string: String? { if case .string(let value) = self { return value } else { return nil } }
    /// The boolean, when this is one.
    public var bool: Bool? { if case .bool(let value) = self { return value } else { return nil } }
    /// The number, when this is one.
    public var number: Double? { if case .number(let value) = self { return value } else { return nil } }
    /// The number as an integer, when this is a whole number that an `Int` holds.
    public var int: Int? {
        guard case .number(let value) = self, value == value.rounded(), abs(value) < 9.0e15 else { return nil }
        return Int(value)
    }
    /// The elements, when this is an array.
    public var array: [JSONValue]? { if case .array(let value) = self { return value } else { return nil } }
    /// The members, when this is an object.
    public var object: [String: JSONValue]? { if case .object(let value) = self { return value } else { return nil } }
    /// The strings of an array of strings (nil when this is not an array or an element is no string).
    public var strings: [String]? {
        guard case .array(let elements) = self else { return nil }
        var result: [String] = []
        for element in elements {
            guard let text = element.string else { return nil }
            result.append(text)
        }
        return result
    }
}
