import Glibc
import VigilText

/// A command's end with its own exit status, thrown to the launcher, which flushes what was
/// printed and ends the process at once, without global destructors (`_exit`): for a command
/// that leaves idle library threads behind (GLib's for libsecret, NIO's event loops), which
/// `exit`'s destructors would wait for for seconds, or pull globals from under. The command's
/// `defer` blocks have run by then, as with any error it throws.
package struct ImmediateExit: Error {
    /// The exit status.
    package let status: Int32

    /// An end with `status`.
    package init(status: Int32) { self.status = status }

    /// Flushes standard output and error (unless `flushing` is false) and ends the process with
    /// `status`, now. A signal handler of the command's own (a signal watched by the command
    /// itself, not by ``Interruption``) passes `flushing: false`: a flush could wait for ever on a
    /// reader that stopped reading, and the signal must end the process.
    package static func now(_ status: Int32, message: String? = nil, flushing: Bool = true) -> Never {
        if flushing { fflush(nil) }
        if let message { StandardStream.writeError(message + "\n") }
        EarlyStart.finish()
        _exit(status)
    }
}
