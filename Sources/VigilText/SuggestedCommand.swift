import Glibc
import Synchronization

/// A command Vigil tells someone to run (`vigil account move ID URL`), made in one place so that
/// what a server, a proxy or a PAC file chose can never become code in the reader's shell: every
/// word that is not plainly safe is quoted for a POSIX shell (single quotes; a quote or a
/// backslash outside them, so that fish reads it the same), and a command with a word that cannot
/// be shown on one line as itself (a control character, a line break, a bidirectional or
/// formatting mark, an unassigned or private-use character) is not offered at all.
///
/// ``line`` is what a terminal, a log or the journal shows; ``arguments`` is the argument vector
/// (JSON's `argv`), for a program that runs it without a shell.
public struct SuggestedCommand: Sendable, Hashable, CustomStringConvertible {
    /// The words, unquoted: `["vigil", "account", "move", "3F2A", "https://…"]`.
    public let arguments: [String]

    /// The command of `arguments`; nil when a word cannot be shown safely. A `vigil account` or
    /// `vigil certificates` command gets the store's location this process was given
    /// (``locate(database:)``), so that it acts on the same accounts as the command that printed it.
    public init?(_ arguments: [String]) {
        var arguments = arguments
        if arguments.count > 2, arguments[0] == "vigil", ["account", "certificates"].contains(arguments[1]),
            !arguments.contains(where: { $0 == "--database" || $0.hasPrefix("--database=") }), let database = Self.database.withLock({ $0 })
        {
            // One word, so that a path that starts with `-` is never read as an option.
            arguments.append("--database=" + database)
        }
        guard !arguments.isEmpty, arguments.allSatisfy(Self.canShow) else { return nil }
        self.arguments = arguments
    }

    private static let database = Mutex<String?>(nil)

    /// The database file the user named (`--database FILE`): every suggested `vigil account` and
    /// `vigil certificates` command names it too. Set once, when the command opens its store.
    /// A relative path is made absolute (the line may be run from another directory: a timer's).
    public static func locate(database path: String) {
        var absolute = path
        if !path.hasPrefix("/"), let directory = getcwd(nil, 0) {
            absolute = String(cString: directory) + "/" + path
            free(directory)
        }
        database.withLock { $0 = absolute }
    }

    /// The words quoted where they need it, joined by spaces: safe to paste into sh, bash, zsh, dash or fish.
    public var line: String { arguments.map(Self.quoted).joined(separator: " ") }

    /// ``line``.
    public var description: String { line }

    /// The line of the command `arguments`, or, when a word cannot be shown safely, a sentence
    /// saying that no command is offered and why (never the word itself).
    public static func line(_ arguments: [String]) -> String {
        SuggestedCommand(arguments)?.line ?? unshowable
    }

    /// What stands where a command cannot be shown.
    public static let unshowable =
        "(no command is offered: a value in it, chosen by the server, the proxy or the PAC file, holds characters that cannot be shown safely)"

    /// Whether `word` can be shown on one line as itself: no control, line-break, format,
    /// private-use, unassigned or surrogate character.
    public static func canShow(_ word: String) -> Bool {
        word.unicodeScalars.allSatisfy { scalar in
            switch scalar.properties.generalCategory {
            case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned, .surrogate: false
            default: !(0xFFFE...0xFFFF).contains(scalar.value)
            }
        }
    }

    /// `word` as a POSIX shell reads it back unchanged: bare when every character is plainly
    /// safe (letters, digits, `_ - . / : @ + ,`, and `%` or `=` after the first), else in single
    /// quotes, with each `'` and `\` outside them (`'\''`, `'\\'`).
    public static func quoted(_ word: String) -> String {
        if !word.isEmpty, word.utf8.enumerated().allSatisfy({ isBare($0.element, first: $0.offset == 0) }) { return word }
        var out = "'"
        for character in word.unicodeScalars {
            switch character {
            case "'": out += "'\\''"
            case "\\": out += "'\\\\'"
            default: out.unicodeScalars.append(character)
            }
        }
        return out + "'"
    }

    /// A byte that needs no quoting in any common shell (`=` first expands in zsh, `%` first in old fish).
    static func isBare(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "@"),
            UInt8(ascii: "+"), UInt8(ascii: ","):
            true
        case UInt8(ascii: "="), UInt8(ascii: "%"): !first
        default: false
        }
    }
}
