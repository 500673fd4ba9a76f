import Dispatch
package import Synchronization

/// A serial queue of its own for calls that block: the keyring (libsecret over D-Bus, where an
/// unlock prompt can wait for minutes) and the database (SQLite, which waits on another process's
/// lock). Async code awaits them here, so that no thread of Swift's cooperative pool, which has
/// one thread per core, waits on D-Bus or a lock while the simulator's or the command's other
/// tasks need it. libcurl transfers have their own threads (`TransferCancellation.onThread`).
///
/// The serial queue is one of Dispatch's own (an overcommitting queue: Dispatch gives it a
/// thread even when every core is busy), never the pool's.
package final class BlockingQueue: Sendable {
    /// libsecret's calls, one at a time.
    package static let keyring = BlockingQueue(label: "vigil.keyring")
    /// SQLite's calls, one at a time (VigilDatabase also holds its connection under a lock).
    package static let database = BlockingQueue(label: "vigil.database")

    let queue: DispatchQueue

    /// A queue of its own, a serial Dispatch queue named `label`.
    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    /// Runs `body` on this queue and returns what it returned or threw.
    package func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Set by the executables in debug builds (and so in `make test`, whose CLI tests and
    /// `vigil simulate` run them): a blocking call made from a task on the cooperative pool
    /// stops the program, naming the call, instead of passing unnoticed.
    package static let enforcing = Atomic<Bool>(false)

    /// Checks (when ``enforcing``) that the caller is not a task on the cooperative pool: a
    /// blocking call belongs on the main thread (a synchronous command), on its own thread or
    /// queue, never on a thread the pool shares.
    package static func checkNotOnCooperativePool(_ call: @autoclosure () -> String) {
        guard enforcing.load(ordering: .relaxed), isOnCooperativePool else { return }
        fatalError("\(call()) blocks, and was called from a task on Swift's cooperative pool; await its async form (BlockingQueue).")
    }

    /// Inside a task, on a thread other than the main one: a thread of the cooperative pool.
    package static var isOnCooperativePool: Bool {
        withUnsafeCurrentTask { $0 != nil } && !OwnThread.isMain
    }
}
