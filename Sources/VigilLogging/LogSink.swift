public import Foundation
public import Logging
import VigilPaths

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
    public var writesOutcomes: Bool { true }
    /// The tag of a command's result (`tags: outcome`).
    public static var outcomeTag: String { "outcome" }
}

/// Writes to standard error.
public final class StandardErrorSink: LogSink, @unchecked Sendable {  // writes are serialised by `lock`
    public let minimumLevel: Logger.Level
    private let lock = NSLock()
    public init(minimumLevel: Logger.Level) { self.minimumLevel = minimumLevel }
    /// The command says its result to the user itself.
    public var writesOutcomes: Bool { false }
    public func write(_ lines: String) {
        var text = lines
        lock.lock()
        defer { lock.unlock() }
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

/// Appends to a log file and rotates it by size (`vigil.log`, `vigil.log.1`, ... up to `keep`).
/// A failure (full disk, unwritable directory) stops this sink, is reported once on standard
/// error, and never stops the program.
public final class RotatingFileSink: LogSink, @unchecked Sendable {  // all state behind `lock`
    public let path: String
    public let minimumLevel: Logger.Level
    public let maximumBytes: Int
    public let keep: Int
    /// Each write reaches the disk before it returns (``LogConfiguration/synchronous``).
    public let synchronous: Bool
    private let lock = NSLock()
    private var fd: Int32 = -1
    private var size = 0
    private var failed = false
    private let report: @Sendable (String) -> Void

    public init(
        path: String, minimumLevel: Logger.Level, maximumBytes: Int = 5 * 1024 * 1024, keep: Int = 3, synchronous: Bool = false,
        report: @escaping @Sendable (String) -> Void = { message in
            FileHandle.standardError.write(Data("vigil: warning: \(message)\n".utf8))
        }
    ) {
        self.path = path
        self.minimumLevel = minimumLevel
        self.maximumBytes = maximumBytes
        self.keep = keep
        self.synchronous = synchronous
        self.report = report
    }

    deinit { if fd >= 0 { close(fd) } }

    /// True once the sink has given up.
    public var hasFailed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return failed
    }

    public func write(_ lines: String) {
        lock.lock()
        defer { lock.unlock() }
        guard !failed else { return }
        if fd < 0, !open() { return }
        var bytes = Array(lines.utf8)
        if size + bytes.count > maximumBytes, size > 0 {
            rotate()
            if fd < 0, !open() { return }
        }
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if written <= 0 {
                fail("cannot write the log file \(path) (\(String(cString: strerror(errno)))); file logging stops")
                return
            }
            offset += written
        }
        size += bytes.count
        bytes.removeAll()
        if synchronous { _ = fdatasync(fd) }
    }

    private func open() -> Bool {
        let directory = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            fail("cannot create the log directory \(directory); file logging stops")
            return false
        }
        // Never through a symlink (another user's file, a planted link); only the user's own
        // regular file, kept readable by the user alone (an older, wider file is tightened).
        switch PrivateFile.openForAppending(path) {
        case .success(let opened):
            (fd, size) = opened
            return true
        case .failure(let refusal):
            fail("cannot open the log file \(path) (\(refusal)); file logging stops")
            return false
        }
    }

    private func rotate() {
        close(fd)
        fd = -1
        if keep > 0 {
            unlink("\(path).\(keep)")
            for index in stride(from: keep - 1, through: 1, by: -1) { rename("\(path).\(index)", "\(path).\(index + 1)") }
            rename(path, "\(path).1")
        } else {
            unlink(path)
        }
        size = 0
    }

    private func fail(_ message: String) {
        failed = true
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        report(message)
    }

    /// The log file and its rotated copies.
    public static func files(for path: String, keep: Int = 3) -> [String] {
        [path] + (1...max(1, keep)).map { "\(path).\($0)" }
    }
}
