import Synchronization

/// What a test double heard, in order (questions asked, pages shown), safe to append from any
/// task: the one list the scripted users share instead of a lock each.
package final class RecordedLines: Sendable {
    private let lines = Mutex<[String]>([])

    package init() {}

    /// Appends `line`.
    package func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// Every line so far, oldest first.
    package var all: [String] { lines.withLock { $0 } }
}
