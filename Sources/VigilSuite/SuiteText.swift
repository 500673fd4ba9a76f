import Foundation
import VigilLogging

/// Text from servers, certificates and fixtures is hostile: before it reaches a terminal, JSON or
/// XML, every control character (C0, DEL, C1), bidirectional override or isolate, and the
/// noncharacters U+FFFE/U+FFFF is shown escaped as `\u{..}`.
enum SuiteText {
    /// One safe line, whole up to 8000 characters (what a hostile client may make a report hold).
    static func oneLine(_ text: String) -> String {
        let line = SafeText.escaped(text.replacingOccurrences(of: "\n", with: " "))
        return line.count > 8000 ? String(line.prefix(8000)) + "…" : line
    }

    /// At most 300 characters, for a terminal's table.
    static func cut(_ line: String) -> String {
        line.count > 300 ? String(line.prefix(300)) + "…" : line
    }
}

extension Duration {
    /// In seconds, for reports.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
