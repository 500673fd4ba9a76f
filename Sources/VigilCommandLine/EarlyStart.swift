import Dispatch
import VigilThreads

/// Work a command is sure to need, started on a thread of its own as soon as the command is
/// parsed, so that it overlaps the command's own start (settings, database, CA files): loading
/// libcurl and its twenty-odd libraries (about 6 ms here).
/// It changes when the work happens, never what it does: the code that needs it waits for it as
/// before (a one-time initialisation).
///
/// The process never exits while such work runs (a library half loaded while `exit` runs the
/// libraries' destructors could crash): ``finish()`` waits for it, and the launcher and
/// ``ExitStatus`` call it before the process ends.
package enum EarlyStart {
    static let running = DispatchGroup()

    /// Starts `work` on a thread named `name`.
    package static func begin(_ name: String, _ work: @escaping @Sendable () -> Void) {
        running.enter()
        // No thread to spare: nothing begun; the command does the work itself when it needs it.
        let started = OwnThread.start(named: name) {
            work()
            running.leave()
        }
        if !started { running.leave() }
    }

    /// Waits for every work begun to end.
    package static func finish() { running.wait() }
}
