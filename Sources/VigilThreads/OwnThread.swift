import CVigilSystem
import Glibc

/// A thread of its own for one blocking call (a libcurl transfer, a loopback redirect's wait, a
/// lock file's `flock`), so that no thread of Swift's cooperative pool waits on it. POSIX threads
/// directly: Foundation's `Thread` would bring all of Foundation (and ICU's data) into the client.
package enum OwnThread {
    /// Runs `body` on a new detached thread named `name` (Linux keeps its first 15 bytes) and
    /// returns what it returned or threw; ``ThreadError`` when no thread can be started.
    package static func run<T: Sendable>(named name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let started = start(named: name) { continuation.resume(with: Result { try body() }) }
            if !started {
                continuation.resume(throwing: ThreadError(.cannotStart, "Vigil could not start a thread (\(name)): the system is out of threads or memory."))
            }
        }
    }

    /// Starts `body` on a new detached thread; false (and `body` never runs) when no thread can
    /// be started (the process is out of threads or memory).
    @discardableResult
    package static func start(named name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
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
            return false
        }
        pthread_detach(thread)
        return true
    }

    /// The process's main thread is the caller (Linux: its thread id is the process id).
    package static var isMain: Bool { vigil_thread_is_main() != 0 }

    private final class Work: Sendable {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
