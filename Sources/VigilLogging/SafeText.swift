/// Text from a certificate, a server or a fixture is hostile: before it reaches a terminal or a
/// text log, every control character (C0 but the line breaks a caller keeps, DEL, C1), every
/// bidirectional override, embedding, isolate or mark, and the noncharacters U+FFFE and U+FFFF are
/// shown escaped as `\u{..}`. A certificate cannot then redraw the screen ("TRUSTED" over the real
/// verdict) or reverse what follows it. JSON output keeps exact values (its encoder escapes them).
public enum SafeText {
    /// Whether `scalar` must never reach a terminal as itself.
    public static func isDangerous(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            || value == 0x200E || value == 0x200F || value == 0x061C || value == 0xFFFE || value == 0xFFFF
    }

    /// `text` with its dangerous characters escaped; line feeds kept when `keepingLines`.
    public static func escaped(_ text: String, keepingLines: Bool = false) -> String {
        // Fast path: printable ASCII (and kept line feeds) stays as it is.
        let isPlain: (UInt8) -> Bool = { ($0 >= 0x20 && $0 < 0x7F) || (keepingLines && $0 == 0x0A) }
        if text.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy(isPlain) }) ?? text.utf8.allSatisfy(isPlain) { return text }
        // Next: text beyond ASCII with nothing dangerous in it (the log's own «private», a
        // name in another script) is returned as it is, without building a copy.
        if !text.unicodeScalars.contains(where: { !(keepingLines && $0 == "\n") && isDangerous($0) }) { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if (keepingLines && scalar == "\n") || !isDangerous(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out
    }

    /// `text` for XML (a JUnit report's attribute or element): hostile characters escaped as
    /// ``escaped(_:keepingLines:)`` does, then XML's own (`&`, `<`, `>`, `"`, `'`; a line break as
    /// `&#10;`, so that an attribute keeps it).
    public static func xmlEscaped(_ text: String) -> String {
        var out = ""
        for scalar in escaped(text, keepingLines: true).unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            case let c where c.value < 0x20 && c != "\t": out += " "
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
