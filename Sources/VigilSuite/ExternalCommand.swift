import Foundation
import Subprocess
import Synchronization
import VigilPaths

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// One run of an external program as a normal process starts: no shell, standard input empty,
/// standard output and error together into a file, default signal dispositions and an empty
/// signal mask, no descriptor of this process but those three (swift-subprocess resets them),
/// in a process group of its own. A run ends when the whole group has exited; whatever is left
/// a grace period after the program exited (or at its timeout) is killed, including descendants
/// that left the group (found by a marker in their environment). It runs in its cell
/// (``ClientCell``): no capability, the machine's sockets and runtime directories out of reach,
/// its scratch directory (`directory`) alone writable; what it reached for outside is recorded.
struct ExternalCommand: Sendable {
    var arguments: [String]
    var environment: [String: String]
    var directory: String
    var timeout: Duration
    /// How long the program's descendants may outlive it before they are killed.
    var grace: Duration = .seconds(3)
    /// In the suite's network namespace: a resolver file bound over the namespace's
    /// `/etc/resolv.conf` (`target`) for this program only, in a mount namespace of its own, so
    /// that the names it looks up are asked of its scenario's name server.
    var resolver: (file: String, target: String)?
    /// Where the cell's tripwires listen: the scenario's directory, which the run removes
    /// however it ends (a signal included); `/tmp` when its path is too long for a socket's.
    var cellBase = "/tmp"

    struct Finished: Sendable {
        /// The exit code; nil when killed for the timeout or by a signal.
        var status: Int32?
        var timedOut: Bool
        /// Standard output and error, at most 256 KiB of it.
        var output: String
        /// Processes the program left behind that had to be killed.
        var leftovers: Int = 0
        /// The paths outside its cell it tried to connect to (``Tripwires``).
        var escapes: [String] = []
    }

    /// The variable that marks every process of one run (inherited by descendants).
    static let markerVariable = "VIGIL_SIMULATE_CLIENT_RUN"

    /// Runs the program; a program that cannot start is an error.
    func run(outputFile: String) async throws -> Finished {
        let output: FileDescriptor
        do {
            output = try FileDescriptor.open(FilePath(outputFile), .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite])
        } catch {
            throw SuiteError(.workDirectory, "cannot write \(outputFile).")
        }
        defer { try? output.close() }
        let marker = UUID().uuidString
        var variables: [Environment.Key: String] = [:]
        for (name, value) in environment { variables[Environment.Key(stringLiteral: name)] = value }
        variables[Environment.Key(stringLiteral: Self.markerVariable)] = marker
        var options = PlatformOptions()
        options.processGroupID = 0
        // The program as the cell finds it: on the PATH folders the cell shows, else (a client
        // of the invoker's own, in a masked folder) where the invoker's PATH has it, that file
        // bound. One that does not exist is told as such, not as the cell's exit 127.
        let cellPath = ClientCell.visiblePath(environment["PATH"] ?? "/usr/bin:/bin")
        variables[Environment.Key(stringLiteral: "PATH")] = cellPath
        guard let executable = Self.locate(self.arguments[0], path: cellPath) ?? Self.locate(self.arguments[0], path: environment["PATH"]) else {
            throw SuiteError(.workDirectory, "\(self.arguments[0]) is not found")
        }
        let wires = try Self.tripwires(in: cellBase)
        defer {
            wires.tripwires.stop()
            try? FileManager.default.removeItem(atPath: wires.directory)
        }
        guard
            let arguments = ClientCell.arguments(
                [executable] + self.arguments.dropFirst(), executable: executable, writable: [directory], tripwires: wires.tripwires, resolver: resolver)
        else { throw SuiteError(.clientCell, "Debian's bubblewrap (bwrap), which makes the client's cell, is not installed") }
        let configuration = Configuration(
            executable: arguments[0].contains("/") ? .path(FilePath(arguments[0])) : .name(arguments[0]), arguments: Arguments(Array(arguments.dropFirst())),
            environment: .custom(variables),
            workingDirectory: FilePath(directory), platformOptions: options)
        let timeout = self.timeout
        let fired = TimeoutFlag()
        // swift-subprocess returns once the leader has exited and been reaped; the body only
        // arms the timeout, which kills the whole group.
        let outcome = try await Subprocess.run(
            configuration, input: .none, output: .fileDescriptor(output, closeAfterSpawningProcess: false),
            error: .fileDescriptor(output, closeAfterSpawningProcess: false)
        ) { execution -> (group: pid_t, timer: Task<Void, any Error>) in
            let group = execution.processIdentifier.value
            let timer = Task {
                try await Task.sleep(for: timeout)
                fired.set()
                kill(-group, SIGKILL)
            }
            return (group, timer)
        }
        outcome.closureResult.timer.cancel()
        let group = outcome.closureResult.group
        let timedOut = fired.isSet
        // The program exited: its group and any descendant that left it get the grace period.
        let deadline = ContinuousClock.now + (timedOut ? .zero : grace)
        while ContinuousClock.now < deadline, Self.alive(group: group, marker: marker) > 0 { try? await Task.sleep(for: .milliseconds(50)) }
        let leftovers = Self.alive(group: group, marker: marker)
        // Whatever is left is killed, and killed again until nothing is (a process may fork
        // while it is being killed).
        var tries = 0
        while tries < 10, Self.alive(group: group, marker: marker) > 0 {
            Self.killAll(group: group, marker: marker)
            tries += 1
            try? await Task.sleep(for: .milliseconds(50))
        }
        let text = Self.tail(of: outputFile, bytes: 256 * 1024)
        // The filter's listener never arrived: the helper refused to run the client (or the cell
        // failed before it): never a client run without its cell.
        guard wires.tripwires.wasFiltered else {
            throw SuiteError(.clientCell, "its cell could not be made: " + SuiteText.oneLine(String(text.suffix(400))))
        }
        var status: Int32?
        if case .exited(let code) = outcome.terminationStatus, !timedOut { status = code }
        return Finished(status: status, timedOut: timedOut, output: text, leftovers: leftovers, escapes: wires.tripwires.tripped)
    }

    /// The tripwires of one run, listening in a new directory of a short path (a socket's path
    /// is at most 107 bytes).
    static func tripwires(in base: String) throws -> (tripwires: Tripwires, directory: String) {
        // "/cell-XXXXXX/tripwire-NN.sock" within a socket path's 107 bytes.
        let base = base.hasPrefix("/") && base.utf8.count <= 107 - 32 ? base : "/tmp"
        guard let directory = PrivateFile.makeDirectory(in: base, prefix: "cell") else {
            throw SuiteError(.clientCell, "no directory for the cell's tripwires in \(base) (\(String(cString: strerror(errno))))")
        }
        do {
            return (try Tripwires(directory: directory, paths: ClientCell.tripwirePaths()), directory)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// The executable `program` names, as an absolute path (the cell starts in another folder):
    /// itself when it holds a slash (from this process's folder when relative), else the first
    /// in `path`'s folders.
    static func locate(_ program: String, path: String?) -> String? {
        if program.contains("/") {
            let absolute = program.hasPrefix("/") ? program : FileManager.default.currentDirectoryPath + "/" + program
            return FileManager.default.isExecutableFile(atPath: absolute) ? URL(fileURLWithPath: absolute).standardizedFileURL.path : nil
        }
        for folder in (path ?? "/usr/bin:/bin").split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/\(program)") {
            return "\(folder)/\(program)"
        }
        return nil
    }

    /// The last `bytes` of a file (a client may write gigabytes; its verdict is at the end).
    static func tail(of path: String, bytes: Int) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { return "" }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > UInt64(bytes) ? size - UInt64(bytes) : 0)
        return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
    }

    /// Live (not zombie) processes in the group or carrying the marker.
    static func alive(group: pid_t, marker: String) -> Int {
        members(group: group, marker: marker).count
    }

    static func members(group: pid_t, marker: String) -> [pid_t] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        let needle = Data("\(markerVariable)=\(marker)\0".utf8)
        var found: [pid_t] = []
        for name in names {
            guard let pid = pid_t(name), pid != getpid() else { continue }
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = text.lastIndex(of: ")") else { continue }
            let fields = text[text.index(after: close)...].split(separator: " ")
            // After the command name: state, parent, process group, session.
            guard fields.count > 3, fields[0] != "Z" else { continue }
            if pid_t(fields[2]) == group {
                found.append(pid)
            } else if let environ = FileManager.default.contents(atPath: "/proc/\(pid)/environ"), environ.range(of: needle) != nil {
                found.append(pid)
            }
        }
        return found
    }

    static func killAll(group: pid_t, marker: String) {
        kill(-group, SIGKILL)
        for pid in members(group: group, marker: marker) { kill(pid, SIGKILL) }
    }
}

/// Whether a run's timeout fired.
final class TimeoutFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .sequentiallyConsistent) }
    var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
}
