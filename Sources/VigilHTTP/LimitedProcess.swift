import CVigilSystem
import Glibc

/// A helper program Vigil does not trust to behave (Debian's `pactester` running a PAC file,
/// `gsettings` reading the desktop's settings), run by `vigil_run_limited`: the given environment
/// only (none by default), no descriptor of Vigil's, limits on address space and CPU, its process
/// group killed at the deadline or when Vigil dies, its standard output and error read together.
enum LimitedProcess {
    /// How it ended.
    enum Outcome {
        /// It exited (128 + signal when a signal ended it), having written `output`;
        /// `truncated` when it wrote more than the limit.
        case exited(status: Int32, output: String, truncated: Bool)
        /// It was killed at the deadline.
        case timedOut
        /// It could not be started (an errno).
        case notStarted(Int32)
    }

    /// The CPU seconds a helper gets unless told otherwise.
    static let defaultCPUSeconds: UInt = 2

    static func run(
        _ arguments: [String], environment: [String]? = nil, input: [UInt8] = [], outputLimit: Int, timeoutMilliseconds: Int32,
        memoryBytes: UInt = 256 << 20, cpuSeconds: UInt = LimitedProcess.defaultCPUSeconds
    ) -> Outcome {
        guard let path = arguments.first else { return .notStarted(ENOENT) }
        var output = [CChar](repeating: 0, count: outputLimit)
        var length = 0
        var status: Int32 = -1
        let started: Int32 = arguments.withCStrings { argv in
            func run(_ envp: UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
                input.withUnsafeBufferPointer { input in
                    input.withMemoryRebound(to: CChar.self) { input in
                        output.withUnsafeMutableBufferPointer { buffer in
                            vigil_run_limited(
                                path, argv, envp, input.baseAddress, input.count, buffer.baseAddress, buffer.count, &length, timeoutMilliseconds,
                                memoryBytes, cpuSeconds, &status)
                        }
                    }
                }
            }
            guard let environment else { return run(nil) }
            return environment.withCStrings { run($0) }
        }
        switch started {
        case 0:
            let text = String(decoding: output.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .exited(status: status, output: text, truncated: length >= outputLimit)
        case ETIMEDOUT: return .timedOut
        default: return .notStarted(started)
        }
    }
}

extension Array where Element == String {
    /// The strings as a NULL-terminated `char *const argv[]` for the duration of `body`.
    func withCStrings<Result>(_ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result) -> Result {
        let copies = map { strdup($0) } + [nil]
        defer { copies.forEach { free($0) } }
        return copies.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
