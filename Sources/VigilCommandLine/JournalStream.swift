import Glibc

/// Standard output connected to the systemd journal (`$JOURNAL_STREAM` names its device and inode,
/// systemd.exec(5)): each line then starts with its syslog priority (`<3>`, `<4>`...), which
/// journald reads (`SyslogLevelPrefix=`, on by default), so that `journalctl --user -u vigil-check
/// -p warning` shows what needs a person. Anywhere else (a terminal, a pipe, a file), lines are
/// printed as they are.
package enum JournalStream {
    /// A line's priority, as syslog numbers them.
    package enum Priority: Int, Sendable {
        /// Something is wrong and needs a person (an expired or changed certificate, a refusal).
        case error = 3
        /// Something will need a person (a certificate near expiry, a login to renew).
        case warning = 4
        /// Worth knowing, nothing to do (an approval no account uses).
        case notice = 5
        /// All well.
        case info = 6
    }

    /// Whether standard output is the journal's stream that `$JOURNAL_STREAM` names.
    package static let isStandardOutput = isJournal(STDOUT_FILENO)
    /// Whether standard error is (a fatal error's line then says `<3>`, not journald's default `info`).
    package static let isStandardError = isJournal(STDERR_FILENO)

    static func isJournal(_ descriptor: Int32) -> Bool {
        guard let value = getenv("JOURNAL_STREAM").map({ String(cString: $0) }) else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    /// `text` (one line) with its priority's prefix when standard output is the journal.
    package static func line(_ text: String, _ priority: Priority) -> String {
        isStandardOutput ? "<\(priority.rawValue)>" + text : text
    }
}
