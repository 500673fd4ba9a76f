import CVigilSystem
import Glibc
import VigilCommandLine
import VigilText

/// A secret the user gives: on standard input (`--password-stdin`), or typed at the terminal.
enum SecretInput {
    /// Typed at the controlling terminal after `prompt`, not echoed; Ctrl-C stops the command
    /// with the terminal as it was (glibc's getpass turns Ctrl-C into a character instead).
    /// Nil without a terminal or at end of input.
    static func fromTerminal(prompt: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        defer { buffer.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
        // Ctrl-C while it waits: the terminal back, "interrupted; nothing was kept", the end
        // (whichever of Interruption and vigil_read_secret's own handler gets the signal).
        let length = Interruption.atPrompt(restore: { vigil_secret_restore_terminal() }) {
            buffer.withUnsafeMutableBufferPointer { vigil_read_secret(prompt, $0.baseAddress, $0.count) }
        }
        guard length >= 0 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The whole of standard input as one line, its final line break (LF, or CR LF) dropped;
    /// nil when there is none or it is not UTF-8.
    static func fromStandardInput() -> String? {
        guard let data = Interruption.atPrompt({ StandardStream.readInput() }), var text = String(validating: data, as: UTF8.self) else {
            return nil
        }
        if text.hasSuffix("\n") { text.removeLast() }
        if text.hasSuffix("\r") { text.removeLast() }
        return text
    }
}
