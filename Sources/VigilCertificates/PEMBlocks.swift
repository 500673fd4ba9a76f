import FoundationEssentials
import Glibc

/// The `-----BEGIN CERTIFICATE-----` blocks of a PEM text, scanned as bytes (memmem for the
/// markers): the one reader of PEM text that `Certificate.parsePEM` and `SystemAnchors` share.
struct PEMBlocks: Sequence, IteratorProtocol {
    /// One block: its base64 body (whitespace included) as it stands between the two markers.
    struct Block {
        /// The bytes between the BEGIN and the END line.
        let body: ArraySlice<UInt8>
        /// False when the text ends before this block's END line.
        let isComplete: Bool

        /// The DER the body decodes to; nil when it is not base64. White space is skipped: ASCII
        /// as bytes, and Unicode's (a no-break space pasted from a web page) by Characters.
        var der: [UInt8]? {
            let characters = body.filter { !PEMBlocks.isWhitespace($0) }
            if let decoded = Data(base64Encoded: Data(characters)) { return [UInt8](decoded) }
            guard body.contains(where: { $0 >= 0x80 }) else { return nil }
            let text = String(decoding: body, as: UTF8.self).filter { !$0.isWhitespace }
            return Data(base64Encoded: text).map { [UInt8]($0) }
        }

        /// How many bytes the body decodes to, from its base64 characters alone (whitespace
        /// skipped, `=` padding counted off); -1 when they are not whole quanta.
        var decodedLength: Int {
            var characters = 0, padding = 0
            for byte in body where !PEMBlocks.isWhitespace(byte) {
                characters += 1
                padding = byte == UInt8(ascii: "=") ? padding + 1 : 0
            }
            guard characters % 4 == 0, padding <= 2 else { return -1 }
            return characters / 4 * 3 - padding
        }
    }

    static let begin = Array("-----BEGIN CERTIFICATE-----".utf8)
    static let end = Array("-----END CERTIFICATE-----".utf8)

    let text: [UInt8]
    var position = 0

    init(_ text: [UInt8]) { self.text = text }

    /// The next block; a block without an END line is the last one given.
    mutating func next() -> Block? {
        guard position <= text.count, let start = Self.find(Self.begin, in: text, from: position) else { return nil }
        let bodyStart = start + Self.begin.count
        guard let stop = Self.find(Self.end, in: text, from: bodyStart) else {
            position = text.count + 1
            return Block(body: text[bodyStart...], isComplete: false)
        }
        position = stop + Self.end.count
        return Block(body: text[bodyStart..<stop], isComplete: true)
    }

    /// Space, tab, CR, LF, vertical tab and form feed: what may break a PEM body's lines.
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }

    /// The index of `needle` in `haystack` at or after `from` (memchr for its first byte, then
    /// memcmp; Glibc's memmem is a GNU extension Swift does not see).
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard from >= 0, !needle.isEmpty, haystack.count - from >= needle.count else { return nil }
        return haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pin in
                guard let base = hay.baseAddress, let first = pin.first, let pinBase = pin.baseAddress else { return nil }
                let last = hay.count - pin.count
                var index = from
                while index <= last, let hit = memchr(base + index, Int32(first), last - index + 1) {
                    index = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + index, pinBase, pin.count) == 0 { return index }
                    index += 1
                }
                return nil
            }
        }
    }
}
