import Foundation
import VigilLogging

/// Text from servers, certificates and fixtures is hostile: before it reaches a terminal, JSON or
/// XML, every control character (C0, DEL, C1), bidirectional override or isolate, and the
/// noncharacters U+FFFE/U+FFFF is shown escaped as `\u{..}`.
enum SuiteText {
    static func isDangerous(_ scalar: Unicode.Scalar) -> Bool { SafeText.isDangerous(scalar) }

    /// Escapes the dangerous characters; line breaks too unless `keepingLines`.
    static func printable(_ text: String, keepingLines: Bool = false) -> String {
        SafeText.escaped(text, keepingLines: keepingLines)
    }

    /// One safe line of at most 300 characters.
    static func oneLine(_ text: String) -> String {
        let line = printable(text.replacingOccurrences(of: "\n", with: " "))
        return line.count > 300 ? String(line.prefix(300)) + "…" : line
    }
}
