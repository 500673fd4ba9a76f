import Foundation
import Synchronization

/// One run of an external program: no shell, standard input empty, standard output and error
/// together into a file, killed (SIGKILL) when it outlives `timeout`.
struct ExternalCommand: Sendable {
    var arguments: [String]
    var environment: [String: String]
    var directory: String
    var timeout: Duration

    struct Finished: Sendable {
        /// The exit code; nil when killed for the timeout or by a signal.
        var status: Int32?
        var timedOut: Bool
        /// Standard output and error, at most 256 KiB of it.
        var output: String
    }

    /// Runs the program; a program that cannot start is an error.
    func run(outputFile: String) async throws -> Finished {
        _ = FileManager.default.createFile(atPath: outputFile, contents: nil, attributes: [.posixPermissions: 0o600])
        guard let output = FileHandle(forWritingAtPath: outputFile) else { throw SuiteError(.workDirectory, "cannot write \(outputFile).") }
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["--"] + arguments
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        let finished = ExitWait()
        process.terminationHandler = { _ in finished.signal() }
        try process.run()
        let pid = process.processIdentifier
        let timedOut = await finished.wait(timeout: timeout)
        if timedOut {
            kill(pid, SIGKILL)
            await finished.waitForever()
        }
        let data = (try? Data(contentsOf: URL(fileURLWithPath: outputFile))) ?? Data()
        let text = String(decoding: data.prefix(256 * 1024), as: UTF8.self)
        let status: Int32? = timedOut || process.terminationReason != .exit ? nil : process.terminationStatus
        return Finished(status: status, timedOut: timedOut, output: text)
    }
}

/// The end of a process, awaited with a time limit.
final class ExitWait: Sendable {
    private struct State {
        var done = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func signal() {
        let resumed = state.withLock { state in
            state.done = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in resumed { waiter.resume() }
    }

    var isDone: Bool { state.withLock { $0.done } }

    func waitForever() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.done { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Whether `timeout` passed before the end.
    func wait(timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if isDone { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return !isDone
    }
}
