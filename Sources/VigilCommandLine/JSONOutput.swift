import FoundationEssentials
import Glibc

/// How every command prints JSON: pretty, keys sorted, slashes as they are, dates in ISO 8601.
package enum JSONOutput {
    package static func text(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
