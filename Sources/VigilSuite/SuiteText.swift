import Foundation

/// Text from servers, certificates and fixtures is hostile: before it reaches a terminal, JSON or
/// XML, every control character (C0, DEL, C1), bidirectional override or isolate, and the
/// noncharacters U+FFFE/U+FFFF is shown escaped as `\u{..}`.
enum SuiteText {
    static func isDangerous(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
            || value == 0x200E || value == 0x200F || value == 0x061C || value == 0xFFFE || value == 0xFFFF
    }

    /// Escapes the dangerous characters; line breaks too unless `keepingLines`.
    static func printable(_ text: String, keepingLines: Bool = false) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if (keepingLines && scalar == "\n") || !isDangerous(scalar) {
                out.unicodeScalars.append(scalar)
            } else {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out
    }

    /// One safe line of at most 300 characters.
    static func oneLine(_ text: String) -> String {
        let line = printable(text.replacingOccurrences(of: "\n", with: " "))
        return line.count > 300 ? String(line.prefix(300)) + "…" : line
    }
}
