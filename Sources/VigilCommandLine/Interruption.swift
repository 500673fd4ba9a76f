import Dispatch
import Glibc
import Synchronization
import VigilLogging
import VigilText
import VigilThreads

/// Ctrl-C (SIGINT) and SIGTERM for `vigil`'s commands: the first signal cancels the running
/// command, which unwinds through its own clean-up (a setup's pending account row, a login's
/// loopback listener, a refresh mark) and fails with the error cancellation gave it; the launcher
/// then says the command was interrupted and the process dies of the signal, as a shell expects
/// (`$?` 130 or 143; a shell loop stops). A command that does not stop within ``gracePeriod``
/// ends then, unless steps that must finish together are running (``VigilThreads/Uninterruptible``:
/// an account's row and its secrets), which it waits for; a synchronous command (nothing to
/// cancel), a blocking prompt and a second signal end the process at once. A single store is never
/// half-written: SQLite rolls an unfinished transaction back, the keyring stores an item whole,
/// and a setup's row left pending is removed by the next command
/// (``VigilAccounts/AccountRegistry``); what was decided before the signal (an approval) stays,
/// and the audit trail says so.
///
/// A signal the process started with ignored (a background job of a non-interactive shell) stays
/// ignored, and a program `vigil` executes (`vigil-simulator`) starts with the signals as they
/// were (``restoreDefaults()``).
package enum Interruption {
    /// The signal received, 0 before any.
    private static let received = Atomic<Int32>(0)
    /// While a secret is read at the terminal: how to give the terminal back (echo on).
    private static let prompt = Mutex<(@Sendable () -> Void)?>(nil)
    /// The signals watched (those not ignored when the process started).
    private static let watched = Mutex<[Int32]>([])
    /// The signal sources; kept for the life of the process.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    /// How long a cancelled command has to stop on its own.
    static let gracePeriod: DispatchTimeInterval = .seconds(5)

    /// The signal that interrupted the command (SIGINT, SIGTERM), or nil.
    package static var signal: Int32? {
        let number = received.load(ordering: .acquiring)
        return number == 0 ? nil : number
    }

    /// Watches SIGINT and SIGTERM from now on; `cancel` runs on the first one (nil: the
    /// command cannot be cancelled and the process ends at once). Call once, before the command
    /// runs; later signals are never lost between ignoring them and watching them.
    package static func install(cancel: (@Sendable () -> Void)?) {
        watch([SIGINT, SIGTERM]) { number in
            let first = received.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing).exchanged
            // A blocking read of the terminal cannot be cancelled: the terminal back, and end.
            if let restore = prompt.withLock({ $0 }) {
                restore()
                die(message: nil)
            }
            guard first, let cancel else { die(message: nil) }
            cancel()
            DispatchQueue.global().asyncAfter(deadline: .now() + gracePeriod) { endAfterGrace() }
        }
    }

    /// Watches `numbers` for the life of the process, calling `handler` with each signal that
    /// arrives: the one way a Vigil command watches signals (``install(cancel:)``, and
    /// `vigil-simulator`'s own clean-ups). A signal the process started with ignored (a background
    /// job of a non-interactive shell) stays ignored and is not watched.
    package static func watch(_ numbers: [Int32], handler: @escaping @Sendable (Int32) -> Void) {
        for number in numbers {
            var current = sigaction()
            sigaction(number, nil, &current)
            if unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            watched.withLock { $0.append(number) }
            // Ignored first: libdispatch then installs its own handler (on Linux it does so when
            // the source starts, and a later `signal` would replace it).
            Glibc.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// Runs `body`, a blocking read of a secret at the terminal: a signal during it ends the
    /// process at once, after `restore` gives the terminal back.
    package static func atPrompt<T>(restore: @escaping @Sendable () -> Void = {}, _ body: () -> T) -> T {
        prompt.withLock { $0 = restore }
        defer { prompt.withLock { $0 = nil } }
        return body()
    }

    /// The grace period is over: the end, once no step that must finish with another runs.
    private static func endAfterGrace() {
        if Uninterruptible.isActive {
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { endAfterGrace() }
            return
        }
        die(message: "it did not stop within 5 seconds")
    }

    /// The watched signals back to their default disposition, for a program about to `exec`
    /// another (which must not inherit them ignored).
    package static func restoreDefaults() {
        for number in watched.withLock({ $0 }) { Glibc.signal(number, SIG_DFL) }
    }

    /// `interrupted (SIGINT)`, `interrupted (SIGTERM)`.
    package static func describe(_ number: Int32) -> String {
        "interrupted (\(number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : number == SIGHUP ? "SIGHUP" : "signal \(number)"))"
    }

    /// Prints `vigil: interrupted (SIGINT)` and `message` (escaped: it may quote a server) on
    /// standard error, then dies of the signal received.
    package static func die(message: String?) -> Never {
        die(text: message.map { ": " + SafeText.escaped($0) } ?? "")
    }

    private static func die(text tail: String) -> Never {
        let number = signal ?? SIGINT
        let text = "vigil: " + describe(number) + tail + "\n"
        // What the command already printed reaches its reader first.
        fflush(nil)
        StandardStream.writeError(text)
        Glibc.signal(number, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, number)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(number)
        // A signal that could not end the process (blocked elsewhere): the shell's code by hand.
        _exit(128 + number)
    }
}
