import Glibc
import VigilText

/// A secret given on standard input (`--password-stdin`): the whole input as one line, its final
/// line break (LF, or CR LF) dropped; nil when there is none or it is not UTF-8.
enum SecretInput {
    static func fromStandardInput() -> String? {
        guard let data = StandardStream.readInput(), var text = String(validating: data, as: UTF8.self) else { return nil }
        if text.hasSuffix("\n") { text.removeLast() }
        if text.hasSuffix("\r") { text.removeLast() }
        return text
    }
}
