import Glibc

/// The process's standard streams as file descriptors (Foundation's `FileHandle` without
/// Foundation): whole writes that retry on a short write or a signal, and a read to the end.
public enum StandardStream {
    /// Writes `text` to standard error (a failed write is dropped: there is nowhere to report it).
    public static func writeError(_ text: String) { write(text, to: STDERR_FILENO) }

    /// Writes `text` to standard output.
    public static func writeOutput(_ text: String) { write(text, to: STDOUT_FILENO) }

    /// Writes `bytes` to `descriptor`, all of them unless the descriptor fails.
    /// Standard output's stdio buffer (`print`) is flushed first, so that the two keep their order.
    public static func write(_ bytes: some Collection<UInt8>, to descriptor: Int32) {
        Array(bytes).withUnsafeBytes { write($0, to: descriptor) }
    }

    /// Writes the bytes at `buffer` to `descriptor`, all of them unless the descriptor fails,
    /// without copying them (the listings' 64 KiB blocks); standard output's stdio buffer first.
    public static func write(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) {
        if descriptor == STDOUT_FILENO { fflush(nil) }
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count {
            let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                return
            }
            offset += written
        }
    }

    /// Writes `text` to `descriptor`.
    public static func write(_ text: String, to descriptor: Int32) { write(Array(text.utf8), to: descriptor) }

    /// Everything standard input holds until its end; nil when it cannot be read.
    public static func readInput() -> [UInt8]? { readAll(STDIN_FILENO) }

    /// Everything `descriptor` gives until its end; nil on a read error.
    public static func readAll(_ descriptor: Int32) -> [UInt8]? {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return result }
            result.append(contentsOf: chunk[..<count])
        }
    }
}
