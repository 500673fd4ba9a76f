import Foundation
import VigilLogging

/// Text from servers, certificates and fixtures is hostile: before it reaches a terminal, JSON or
/// XML, every control character (C0, DEL, C1), bidirectional override or isolate, and the
/// noncharacters U+FFFE/U+FFFF is shown escaped as `\u{..}`.
enum SuiteText {
    /// One safe line of at most 300 characters.
    static func oneLine(_ text: String) -> String {
        let line = SafeText.escaped(text.replacingOccurrences(of: "\n", with: " "))
        return line.count > 300 ? String(line.prefix(300)) + "…" : line
    }
}

extension Duration {
    /// In seconds, for reports.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
