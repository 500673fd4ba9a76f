import FoundationEssentials
import Glibc
public import Logging
import Synchronization
import VigilPaths
import VigilText

/// Where formatted log lines go. Sinks are shared by every logger, so they are classes that
/// serialise their writes.
public protocol LogSink: AnyObject, Sendable {
    /// The lowest level this sink writes.
    var minimumLevel: Logger.Level { get }
    /// Writes one or more complete lines (each ending in a newline).
    func write(_ lines: String)
    /// Whether it writes records tagged ``LogSink/outcomeTag``: a command's result (a refusal,
    /// a failed login, a changed certificate, an error), which the command also tells the user
    /// itself. The log file keeps them for the administrator; the terminal would show them twice.
    var writesOutcomes: Bool { get }
}

extension LogSink {
    /// A sink writes outcomes unless it says otherwise.
    public var writesOutcomes: Bool { true }
    /// The tag of a command's result (`tags: outcome`).
    public static var outcomeTag: String { "outcome" }
}

/// Writes to standard error.
public final class StandardErrorSink: LogSink {
    /// The lowest level written.
    public let minimumLevel: Logger.Level
    /// Writes are serialised: one record's lines are never interleaved with another's.
    private let lock = Mutex(())
    /// A sink writing `minimumLevel` and above to standard error.
    public init(minimumLevel: Logger.Level) { self.minimumLevel = minimumLevel }
    /// The command says its result to the user itself.
    public var writesOutcomes: Bool { false }
    /// Writes the lines to standard error under the lock; a failed write drops the rest silently.
    public func write(_ lines: String) {
        var text = lines
        lock.withLock { _ in
            text.withUTF8 { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = Glibc.write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
    }
}

/// Appends to a log file and rotates it by size (`vigil.log`, `vigil.log.1`, ... up to `keep`).
/// A failure (full disk, unwritable directory) stops this sink, is reported once on standard
/// error, and never stops the program.
public final class RotatingFileSink: LogSink {
    /// The log file's path.
    public let path: String
    /// The lowest level written.
    public let minimumLevel: Logger.Level
    /// Size in bytes past which the file is rotated before the next write.
    public let maximumBytes: Int
    /// How many rotated copies are kept (`path.1` ... `path.keep`); 0 keeps none.
    public let keep: Int
    /// Each write reaches the disk before it returns (``LogConfiguration/synchronous``).
    public let synchronous: Bool
    /// The open file, its size and whether the sink gave up: behind one lock.
    private struct State {
        var fd: Int32 = -1
        var size = 0
        var failed = false
    }
    private let state = Mutex(State())
    private let report: @Sendable (String) -> Void

    /// A sink for `path`, opened on the first write (5 MiB and 3 copies by default); `report` gets the one failure message,
    /// by default as a warning on standard error.
    public init(
        path: String, minimumLevel: Logger.Level, maximumBytes: Int = 5 * 1024 * 1024, keep: Int = 3, synchronous: Bool = false,
        report: (@Sendable (String) -> Void)? = nil
    ) {
        self.path = path
        self.minimumLevel = minimumLevel
        self.maximumBytes = maximumBytes
        self.keep = keep
        self.synchronous = synchronous
        self.report = report ?? { message in StandardStream.writeError("vigil: warning: \(message)\n") }
    }

    deinit { state.withLock { if $0.fd >= 0 { close($0.fd) } } }

    /// True once the sink has given up.
    public var hasFailed: Bool { state.withLock { $0.failed } }

    /// Appends the lines, rotating first when they would take a non-empty file past `maximumBytes`; nothing once failed.
    public func write(_ lines: String) {
        state.withLock { state in
            guard !state.failed else { return }
            if state.fd < 0, !open(&state) { return }
            var bytes = Array(lines.utf8)
            if state.size + bytes.count > maximumBytes, state.size > 0 {
                rotate(&state)
                if state.fd < 0, !open(&state) { return }
            }
            var offset = 0
            let fd = state.fd
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
                if written <= 0 {
                    fail(&state, "cannot write the log file \(path) (\(String(cString: strerror(errno)))); file logging stops")
                    return
                }
                offset += written
            }
            state.size += bytes.count
            bytes.removeAll()
            if synchronous { _ = fdatasync(fd) }
        }
    }

    private func open(_ state: inout State) -> Bool {
        let directory = PathName.directory(of: path)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            fail(&state, "cannot create the log directory \(directory); file logging stops")
            return false
        }
        // Never through a symlink (another user's file, a planted link); only the user's own
        // regular file, kept readable by the user alone (an older, wider file is tightened).
        switch PrivateFile.openForAppending(path) {
        case .success(let opened):
            (state.fd, state.size) = opened
            return true
        case .failure(let refusal):
            fail(&state, "cannot open the log file \(path) (\(refusal)); file logging stops")
            return false
        }
    }

    private func rotate(_ state: inout State) {
        close(state.fd)
        state.fd = -1
        if keep > 0 {
            unlink("\(path).\(keep)")
            for index in stride(from: keep - 1, through: 1, by: -1) { rename("\(path).\(index)", "\(path).\(index + 1)") }
            rename(path, "\(path).1")
        } else {
            unlink(path)
        }
        state.size = 0
    }

    private func fail(_ state: inout State, _ message: String) {
        state.failed = true
        if state.fd >= 0 {
            close(state.fd)
            state.fd = -1
        }
        report(message)
    }

    /// The log file and its rotated copies.
    public static func files(for path: String, keep: Int = 3) -> [String] {
        [path] + (1...max(1, keep)).map { "\(path).\($0)" }
    }
}
