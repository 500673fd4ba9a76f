import FoundationEssentials
import Glibc

/// Colours for a person at a terminal: only on a TTY, never with NO_COLOR set or TERM=dumb.
struct Terminal {
    let colours: Bool

    static var standardOutput: Terminal {
        let environment = ProcessInfo.processInfo.environment
        let noColour = !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb"
        return Terminal(colours: isatty(STDOUT_FILENO) == 1 && !noColour)
    }

    func red(_ text: String) -> String { paint(text, "31;1") }
    func green(_ text: String) -> String { paint(text, "32;1") }
    func yellow(_ text: String) -> String { paint(text, "33") }
    func bold(_ text: String) -> String { paint(text, "1") }
    func dim(_ text: String) -> String { paint(text, "2") }

    private func paint(_ text: String, _ code: String) -> String {
        colours ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}
