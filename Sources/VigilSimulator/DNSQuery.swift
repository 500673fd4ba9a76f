/// One DNS query as a stub resolver sends it (RFC 1035 4.1): its id, flags and first question,
/// parsed from bytes a client sent (hostile: every length is checked), and the answer built for it.
///
/// Written here rather than taken from a library: the name server answers one question with A or
/// AAAA records and nothing else (no recursion, no zones, no compression to follow in a query),
/// which is some sixty lines; no DNS library among the packages this project may use does less.
struct DNSQuery: Sendable, Equatable {
    /// Record types answered.
    static let typeA: UInt16 = 1
    static let typeAAAA: UInt16 = 28

    var id: UInt16
    var flags: UInt16
    /// The name asked, lower case, without its trailing dot, each label's bytes outside
    /// `[a-z0-9-_]` written `\DDD` (as dig writes them): safe to show.
    var name: String
    /// The name's bytes as sent (labels joined by dots, at most 255 bytes): searched for secrets.
    var rawName: [UInt8]
    var type: UInt16
    var questionClass: UInt16
    /// The question's bytes (name, type, class), copied into the answer.
    var question: [UInt8]

    /// Parses a query; nil for anything that is not a standard query with one question.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 12 else { return nil }
        id = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        flags = UInt16(bytes[2]) << 8 | UInt16(bytes[3])
        let questions = UInt16(bytes[4]) << 8 | UInt16(bytes[5])
        // A response (QR), or an opcode other than QUERY: not a query to answer.
        guard flags & 0x8000 == 0, (flags >> 11) & 0xF == 0, questions >= 1 else { return nil }
        var index = 12
        var labels: [String] = []
        var raw: [UInt8] = []
        while true {
            guard index < bytes.count else { return nil }
            let length = Int(bytes[index])
            index += 1
            if length == 0 { break }
            // A pointer (0xC0) or a reserved label type has no place in a query's first name.
            guard length < 64, index + length <= bytes.count, labels.count < 127 else { return nil }
            labels.append(Self.label(bytes[index..<index + length]))
            if !raw.isEmpty { raw.append(UInt8(ascii: ".")) }
            raw += bytes[index..<index + length]
            index += length
        }
        guard index + 4 <= bytes.count else { return nil }
        type = UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1])
        questionClass = UInt16(bytes[index + 2]) << 8 | UInt16(bytes[index + 3])
        question = Array(bytes[12..<index + 4])
        name = labels.joined(separator: ".")
        rawName = Array(raw.prefix(255))
    }

    /// A label's bytes, lower case, `\DDD` for every byte that is not a letter, a digit, `-` or `_`.
    static func label(_ bytes: ArraySlice<UInt8>) -> String {
        var text = ""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): text.unicodeScalars.append(Unicode.Scalar(byte + 32))
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = String(byte)
                text += "\\" + String(repeating: "0", count: 3 - digits.count) + digits
            }
        }
        return text
    }

    /// The answer: the question copied, authoritative, recursion offered; `addresses` as A
    /// records (4 bytes each) or AAAA records (16 bytes each) with a short TTL; `code` the
    /// response code (0 no error, 4 not implemented).
    func answer(addresses: [[UInt8]], code: UInt8 = 0) -> [UInt8] {
        let recursionDesired = flags & 0x0100
        let flags: UInt16 = 0x8000 | 0x0400 | recursionDesired | 0x0080 | UInt16(code & 0xF)
        var bytes: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), UInt8(flags >> 8), UInt8(flags & 0xFF), 0, 1]
        bytes += [UInt8(addresses.count >> 8), UInt8(addresses.count & 0xFF), 0, 0, 0, 0]
        bytes += question
        for address in addresses {
            let recordType: UInt16 = address.count == 16 ? Self.typeAAAA : Self.typeA
            // The question's name by pointer (offset 12), class IN, TTL 5 seconds.
            bytes += [0xC0, 0x0C, UInt8(recordType >> 8), UInt8(recordType & 0xFF), 0, 1, 0, 0, 0, 5, 0, UInt8(address.count)]
            bytes += address
        }
        return bytes
    }
}
