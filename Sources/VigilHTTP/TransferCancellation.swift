import CCurl
import FoundationEssentials
import Glibc
import Synchronization
import VigilThreads

/// A flag a task's cancellation sets and a blocking loop on another thread reads.
public final class CancellationFlag: Sendable {
    private let value = Mutex(false)

    /// A flag not yet set.
    public init() {}
    /// Whether ``set()`` was called.
    public var isSet: Bool { value.withLock { $0 } }
    /// Sets the flag; it stays set.
    public func set() { value.withLock { $0 = true } }
}

/// Cancels a libcurl transfer that runs on a thread of its own: the task's cancellation sets the
/// flag, and libcurl's progress callback (called at least once a second, more often while data
/// flows) aborts the transfer when it is set.
final class TransferCancellation: Sendable {
    private let flag = CancellationFlag()

    var isCancelled: Bool { flag.isSet }
    func cancel() { flag.set() }

    /// Registers the abort check on `handle`; `self` must outlive the transfer.
    func watch(_ handle: UnsafeMutableRawPointer) throws {
        try Curl.check(vigil_curl_setopt_progress(handle, Self.abortIfCancelled, Unmanaged.passUnretained(self).toOpaque()), "its progress callback")
    }

    static let abortIfCancelled: vigil_curl_progress_callback = { context, _, _, _, _ in
        guard let context else { return 0 }
        return Unmanaged<TransferCancellation>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
    }

    /// Runs `body` on a thread of its own (libcurl blocks), cancelled with the calling task.
    static func onThread<T: Sendable>(named name: String, _ body: @escaping @Sendable (TransferCancellation) throws -> T) async throws -> T {
        let cancellation = TransferCancellation()
        return try await withTaskCancellationHandler {
            try await OwnThread.run(named: name) { try body(cancellation) }
        } onCancel: {
            cancellation.cancel()
        }
    }

    /// The error of a transfer this cancellation aborted.
    func error(_ endpoint: Endpoint) -> HTTPError {
        HTTPError(.cancelled, "\(endpoint): cancelled; the transfer was stopped.")
    }
}
