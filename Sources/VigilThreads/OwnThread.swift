import CVigilSystem
import Glibc

/// A thread of its own for one blocking call (a libcurl transfer, a loopback redirect's wait, a
/// lock file's `flock`), so that no thread of Swift's cooperative pool waits on it. POSIX threads
/// directly: Foundation's `Thread` would bring all of Foundation (and ICU's data) into the client.
public enum OwnThread {
    /// Runs `body` on a new detached thread named `name` (Linux keeps its first 15 bytes)
    /// and returns what it returned or threw.
    public static func run<T: Sendable>(named name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            start(named: name) { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Runs `body` on a new detached thread named `name` and returns what it returned.
    public static func run<T: Sendable>(named name: String, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            start(named: name) { continuation.resume(returning: body()) }
        }
    }

    /// Starts `body` on a new detached thread; a thread that cannot be made (the process is out of
    /// threads) is a fatal error, as Foundation's `Thread.start` is.
    public static func start(named name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Work(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { pointer in
                let work = Unmanaged<Work>.fromOpaque(pointer!).takeRetainedValue()
                _ = vigil_thread_set_name(work.name)
                work.body()
                return nil
            }, box)
        guard status == 0 else {
            Unmanaged<Work>.fromOpaque(box).release()
            fatalError("Cannot start a thread (\(name)): pthread_create returned \(status).")
        }
        pthread_detach(thread)
    }

    /// The process's main thread is the caller (Linux: its thread id is the process id).
    public static var isMain: Bool { vigil_thread_is_main() != 0 }

    private final class Work: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
