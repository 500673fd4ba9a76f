import Foundation
import Testing
import VigilText

/// Every command Vigil suggests is made by SuggestedCommand: what a hostile server, proxy or PAC
/// file chose goes into it as words that every common shell reads back unchanged, never as code.
/// Each line is run for real, in sh (dash), bash, zsh and fish where installed, with `vigil`
/// swapped for a recorder of its arguments.
@Suite("Suggested commands are safe to paste")
struct SuggestedCommandTests {
    /// Words a server, a proxy or a PAC file could choose: every shell metacharacter, quotes of
    /// each kind, backslashes, expansions of each shell, globs, and text beyond ASCII.
    static let hostileWords: [String] = [
        "https://127.0.0.2:8443/$(touch$IFS'pwned')",
        "https://x/`touch pwned`", "https://x/;touch pwned", "https://x/&&touch pwned", "https://x/|touch pwned",
        "a'b", "a\"b", "a\\", "\\'", "'\\''", "it's", "$HOME", "${IFS}", "$((1+1))", "~root", "~", "*", "?", "[a-z]", "{a,b}",
        "!!", "!$", "#comment", "a#b", "=ls", "%self", "-rf", "--accept-redirect=x", "a b", "  ", "", "<in", ">out", "2>&1",
        "(subshell)", "https://bücher.example/Ä", "https://x/\u{00A0}nbsp", "日本語", "😀",
        "https://127.0.0.2:3128/%40evil", "alice-proxy@127.0.0.2:3128", "x^y", "x,y", "@host", "+x", "a=b",
    ]

    @Test func everyHostileWordComesBackAsItselfInEveryShell() throws {
        let words = ["vigil", "account", "move", "3F2A-ID"] + Self.hostileWords
        let command = try #require(SuggestedCommand(words))
        #expect(!command.line.contains("\n"))
        for shell in Self.shells {
            let directory = try Self.temporaryDirectory()
            let recorded = try Self.run(command.line, in: shell, directory: directory)
            #expect(recorded == Array(words.dropFirst()), "\(shell): \(command.line)")
            let left = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0 != "recorded" }
            #expect(left.isEmpty, "\(shell) ran something of the line: \(left)")
        }
    }

    @Test func plainWordsStayBareAndTheRestIsQuoted() {
        #expect(SuggestedCommand.quoted("https://cloud.example.com:8443/nc") == "https://cloud.example.com:8443/nc")
        #expect(SuggestedCommand.quoted("3F2A-11") == "3F2A-11")
        #expect(SuggestedCommand.quoted("a b") == "'a b'")
        #expect(SuggestedCommand.quoted("it's") == "'it'\\''s'")
        #expect(SuggestedCommand.quoted("a\\b") == "'a'\\\\'b'")
        #expect(SuggestedCommand.quoted("") == "''")
        #expect(SuggestedCommand.quoted("=x") == "'=x'" && SuggestedCommand.quoted("a=x") == "a=x")
    }

    /// A word with a line break, a control character or a bidirectional mark cannot be shown on
    /// one line as itself: no command is offered, and the sentence instead never holds the word.
    @Test func aWordThatCannotBeShownOffersNoCommand() {
        for word in ["a\nb", "a\tb", "a\rb", "\u{1B}[2J", "a\u{202E}b", "a\u{2066}b", "a\u{200B}b", "a\u{0085}b", "a\u{2028}b", "\u{E000}", "\u{7F}"] {
            #expect(SuggestedCommand(["vigil", "account", "move", "ID", word]) == nil, "\(word.unicodeScalars.map(\.value))")
            let line = SuggestedCommand.line(["vigil", "account", "move", "ID", word])
            #expect(line == SuggestedCommand.unshowable && !line.contains(word))
        }
    }

    // MARK: - Running a line

    /// sh, and bash, zsh and fish when installed.
    static let shells: [String] = ["/bin/sh", "/bin/bash", "/usr/bin/zsh", "/usr/bin/fish"].filter { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `line` in `shell`, in `directory`, with `vigil` a function that writes its arguments
    /// (NUL-separated) to `recorded`; the arguments it got.
    static func run(_ line: String, in shell: String, directory: String) throws -> [String] {
        let recorder =
            shell.hasSuffix("fish")
            ? "function vigil; for a in $argv; printf '%s\\0' $a; end > recorded; end; "
            : "vigil() { for a in \"$@\"; do printf '%s\\0' \"$a\"; done > recorded; }; "
        let process = Process()
        process.executableURL = URL(fileURLWithPath: shell)
        process.arguments = shell.hasSuffix("fish") ? ["--no-config", "-c", recorder + line] : ["-c", recorder + line]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = ["PATH": "/usr/bin:/bin", "HOME": directory + ".home", "LANG": "C.UTF-8"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard let data = FileManager.default.contents(atPath: directory + "/recorded") else { return [] }
        var words = String(decoding: data, as: UTF8.self).split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
        if words.last == "" { words.removeLast() }
        return words
    }

    static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-suggested-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
