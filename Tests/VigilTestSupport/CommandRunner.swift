package import Foundation

/// Runs a program to completion and captures what it printed.
package struct CommandResult: Sendable {
    package var status: Int32
    package var standardOutput: String
    package var standardError: String

    /// The type and code of the Vigil error the command failed with, from the end of its
    /// `vigil: error:` line (`StoreError not-found`); nil when the line names none.
    package var errorCode: String? {
        guard let line = standardError.split(separator: "\n").last(where: { $0.hasPrefix("vigil: error: ") }), line.hasSuffix("]"),
            let open = line.lastIndex(of: "[")
        else { return nil }
        return String(line[line.index(after: open)..<line.index(before: line.endIndex)])
    }
}

package enum CommandRunner {
    /// `openssl` in `directory`, for a test's own PKI; throws with its standard error when it fails.
    package static func openssl(_ arguments: [String], in directory: URL) throws {
        let result = try run("/usr/bin/openssl", arguments, currentDirectory: directory.path)
        guard result.status == 0 else { throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: result.standardError]) }
    }

    /// Runs `executable` with `arguments`; `environment` entries are added to (or, with nil, removed from) ours.
    package static func run(
        _ executable: String, _ arguments: [String], environment: [String: String?] = [:], input: Data? = nil,
        currentDirectory: String? = nil
    ) throws -> CommandResult {
        TestPaths.ignoreBrokenPipes()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let inputPipe = Pipe()
        process.standardInput = inputPipe
        try process.run()
        // Drain both pipes concurrently so a chatty child cannot block on a full pipe.
        let errorData = LockedData()
        let reader = Thread { errorData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        if let input { inputPipe.fileHandleForWriting.write(input) }
        try? inputPipe.fileHandleForWriting.close()
        let outputData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errorData.isSet { usleep(1000) }
        return CommandResult(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData.value, as: UTF8.self)
        )
    }

    /// `run` on a thread of its own, for async callers: a blocking wait on the cooperative pool
    /// would starve servers (Hummingbird) that run their requests there.
    package static func runDetached(_ executable: String, _ arguments: [String], environment: [String: String?] = [:]) async throws -> CommandResult {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try run(executable, arguments, environment: environment) }) }.start()
        }
    }

    /// Runs the built `vigil`, hermetically: its own state directory, no user settings file and no managed file unless
    /// `environment` names them, and none of the caller's `VIGIL_` settings.
    package static func vigil(
        _ arguments: [String], environment: [String: String?] = [:], input: Data? = nil,
        currentDirectory: String? = nil
    ) throws -> CommandResult {
        try run(TestPaths.vigilBinary, withNetworkFallback(arguments), environment: hermetic(environment), input: input, currentDirectory: currentDirectory)
    }

    /// `vigil simulate --client` where network namespaces cannot be made: with
    /// `--no-network-namespace` (``TestPaths/networkNamespaces``).
    package static func withNetworkFallback(_ arguments: [String]) -> [String] {
        guard arguments.first == "simulate", arguments.contains(where: { $0 == "--client" || $0 == "--client-profile" }),
            !arguments.contains("--no-network-namespace"), !TestPaths.networkNamespaces
        else { return arguments }
        return arguments + ["--no-network-namespace"]
    }

    /// Starts the built `vigil` as ``vigil(_:environment:input:currentDirectory:)`` does, without
    /// waiting and with its output discarded: for tests that kill it.
    package static func startVigil(_ arguments: [String], environment: [String: String?] = [:]) throws -> Process {
        var env = ProcessInfo.processInfo.environment
        for (key, value) in hermetic(environment) { env[key] = value }
        return try ServerProcess.start(TestPaths.vigilBinary, arguments, environment: env)
    }

    /// Starts the built `vigil` hermetically, without input, its output and errors written to
    /// these files (created empty): for tests that signal it and then read what it said.
    package static func startVigil(_ arguments: [String], output: String, errors: String) throws -> Process {
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in hermetic([:]) { environment[key] = value }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.vigilBinary)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        return process
    }

    /// How `process` ended: whether it exited (else a signal ended it) and its status or signal,
    /// reaped here with waitpid when Foundation's own watch has not (a child that ends the moment
    /// it is signalled was seen left unreaped, and waitUntilExit never returned); nil when it is
    /// still running after a minute (a bound on the loop, not a timing assertion).
    package static func waitForExit(_ process: Process) async -> (exited: Bool, status: Int32)? {
        for _ in 0..<1_200 {
            var status: Int32 = 0
            let reaped = waitpid(process.processIdentifier, &status, WNOHANG)
            if reaped == process.processIdentifier {
                let signal = status & 0x7f
                return signal == 0 ? (true, (status >> 8) & 0xff) : (false, signal)
            }
            if reaped == -1, !process.isRunning { return (process.terminationReason == .exit, process.terminationStatus) }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Its own state directory, no user settings file and no managed file unless `environment`
    /// names them, and none of the caller's `VIGIL_` settings.
    package static func hermetic(_ environment: [String: String?]) -> [String: String?] {
        var hermetic: [String: String?] = [
            "XDG_CONFIG_HOME": emptyConfigHome, "VIGIL_MANAGED_CONFIG": emptyConfigHome + "/no-managed.json",
            "XDG_STATE_HOME": emptyConfigHome + "/state", "XDG_DATA_HOME": emptyConfigHome + "/data",
        ]
        // The desktop's proxy setting is the machine's, not the test's (SquidProxyTests sets one).
        hermetic["XDG_CURRENT_DESKTOP"] = .some(nil)
        for key in ProcessInfo.processInfo.environment.keys where key.hasPrefix("VIGIL_") && key != "VIGIL_BINARY" && key != "VIGIL_MANAGED_CONFIG" {
            hermetic[key] = .some(nil)
        }
        return hermetic.merging(environment) { $1 }
    }

    /// `vigil` on a thread of its own, for async callers (see ``runDetached(_:_:environment:)``).
    package static func vigilDetached(_ arguments: [String], environment: [String: String?] = [:], input: Data? = nil) async throws -> CommandResult {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try vigil(arguments, environment: environment, input: input) }) }.start()
        }
    }

    static let emptyConfigHome: String = (try? TestPaths.temporaryDirectory().path) ?? "/nonexistent-vigil-config"
}

final class LockedData: @unchecked Sendable {  // guarded by lock
    private let lock = NSLock()
    private var data = Data()
    private var done = false
    func set(_ value: Data) {
        lock.lock()
        data = value
        done = true
        lock.unlock()
    }
    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return done
    }
    var value: Data {
        lock.lock()
        defer { lock.unlock() }
        return data
    }
}
