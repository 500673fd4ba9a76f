import Synchronization

/// Steps that must finish together once begun (an account's row removed, then its secrets):
/// while one runs, an interrupted command's grace period does not end the process (a second
/// Ctrl-C still does, at once). `VigilCommandLine.Interruption` reads it.
package enum Uninterruptible {
    private static let depth = Atomic<Int>(0)

    /// Whether such steps are running now.
    package static var isActive: Bool { depth.load(ordering: .acquiring) > 0 }

    /// Runs `body` as one such step.
    package static func run<T>(_ body: () async throws -> T) async rethrows -> T {
        depth.add(1, ordering: .acquiringAndReleasing)
        defer { depth.subtract(1, ordering: .acquiringAndReleasing) }
        return try await body()
    }
}
