/// Percent-encoding (RFC 3986, section 2.1) without Foundation: bytes outside an allowed set are
/// written `%XX` (uppercase), and `%XX` sequences are read back.
public enum PercentEncoding {
    /// RFC 3986's unreserved characters: ASCII letters and digits and `-._~`.
    public static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): return true
        default: return false
        }
    }

    /// ASCII letters and digits only.
    public static func isAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return false
        }
    }

    /// What a path segment may hold as it is: RFC 3986 `pchar` without `/`, `?`, `#`, `%` and `;`
    /// (servers read `;` as the start of path parameters; Foundation's `urlPathAllowed` encodes it).
    public static func isPathSegmentCharacter(_ byte: UInt8) -> Bool {
        if isUnreserved(byte) { return true }
        return "!$&'()*+,=:@".utf8.contains(byte)
    }

    /// `text` with every UTF-8 byte that `allowed` refuses written as `%XX`.
    public static func encode(_ text: some StringProtocol, allowing allowed: (UInt8) -> Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        let digits = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if allowed(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(digits[Int(byte >> 4)])
                output.append(digits[Int(byte & 0xF)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `text` with each `%XX` replaced by its byte; nil when a `%` is not followed by two hex
    /// digits or the bytes are not UTF-8 (as Foundation's `removingPercentEncoding`).
    public static func decode(_ text: some StringProtocol) -> String? {
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(validating: output, as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
