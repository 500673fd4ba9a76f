import Foundation

/// A Secret Service of the suite's own: a private D-Bus session bus (dbus-daemon) and a GNOME
/// Keyring on it, unlocked with a throw-away password, its keyrings in a temporary directory.
/// ``start()`` points this process's `DBUS_SESSION_BUS_ADDRESS` at it, so call it before anything
/// touches the keyring; ``stop()`` ends both daemons and deletes the directory.
///
/// One per run, shared by the scenarios: libsecret binds a process to one session bus. Scenarios
/// tell their items apart by account (each scenario's servers have ports of their own).
package final class PrivateSecretService: @unchecked Sendable {  // immutable after start; stop is idempotent
    /// The temporary directory holding the bus socket and the keyrings.
    package let directory: String
    /// The private bus's address (`unix:path=...`).
    package let busAddress: String
    private let bus: pid_t
    private let previousAddress: String?

    private init(directory: String, busAddress: String, bus: pid_t, previousAddress: String?) {
        self.directory = directory
        self.busAddress = busAddress
        self.bus = bus
        self.previousAddress = previousAddress
    }

    /// Starts dbus-daemon and gnome-keyring-daemon; throws ``SuiteError`` with how to fix it when
    /// either is missing or does not start.
    package static func start() throws -> PrivateSecretService {
        let directory = NSTemporaryDirectory() + "vigil-secret-service-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let address = "unix:path=\(directory)/run/bus"
        // Spawned by hand (not Foundation's Process): GNOME Keyring, started on this bus, inherits
        // the descriptors Process watches, and Process would then wait for it too.
        var environment = ProcessInfo.processInfo.environment
        // Nothing of the user's own session reaches the daemons.
        for name in ["GNOME_KEYRING_CONTROL", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_PID", "DBUS_STARTER_ADDRESS", "DBUS_STARTER_BUS_TYPE", "GPG_AGENT_INFO"] {
            environment[name] = nil
        }
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment["XDG_DATA_HOME"] = directory + "/data"
        environment["XDG_RUNTIME_DIR"] = directory + "/run"
        guard let bus = Self.spawn(["dbus-daemon", "--session", "--nofork", "--nopidfile", "--address=\(address)"], environment: environment, input: nil) else {
            try? FileManager.default.removeItem(atPath: directory)
            throw SuiteError(.secretService, "Cannot start dbus-daemon; install it (Debian: dbus-daemon).")
        }
        // The bus is up once its socket exists.
        var waited = 0
        while !FileManager.default.fileExists(atPath: "\(directory)/run/bus") && waited < 500 && Self.isRunning(bus) {
            usleep(10_000)
            waited += 1
        }
        guard Self.isRunning(bus), FileManager.default.fileExists(atPath: "\(directory)/run/bus") else {
            Self.end(bus)
            try? FileManager.default.removeItem(atPath: directory)
            throw SuiteError(.secretService, "dbus-daemon did not start a session bus in \(directory).")
        }
        // The daemon forks; its first process exits once the keyring is unlocked and serving.
        let password = "vigil-simulate-\(UUID().uuidString)"  // non-empty: GNOME Keyring keeps an empty-password keyring unencrypted
        let status = Self.spawnAndWait(["gnome-keyring-daemon", "--unlock", "--components=secrets"], environment: environment, input: password)
        guard status == 0 else {
            Self.end(bus)
            try? FileManager.default.removeItem(atPath: directory)
            throw SuiteError(
                .secretService,
                status == 127
                    ? "gnome-keyring-daemon is not installed; install gnome-keyring (Debian: gnome-keyring)."
                    : "gnome-keyring-daemon did not start (exit \(status)).")
        }
        let previous = ProcessInfo.processInfo.environment["DBUS_SESSION_BUS_ADDRESS"]
        setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
        return PrivateSecretService(directory: directory, busAddress: address, bus: bus, previousAddress: previous)
    }

    /// Runs `arguments` (looked up on PATH) with `input` on its standard input and its output
    /// discarded; returns its exit status (127 when it cannot be started).
    static func spawnAndWait(_ arguments: [String], environment: [String: String], input: String) -> Int32 {
        guard let pid = spawn(arguments, environment: environment, input: input) else { return 127 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// Starts `arguments` (looked up on PATH), `input` (if any) on its standard input, its output
    /// discarded; nil when it cannot be started.
    static func spawn(_ arguments: [String], environment: [String: String], input: String?) -> pid_t? {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
        posix_spawn_file_actions_addclose(&actions, fds[1])
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        // Swift's threads block signals and the process ignores SIGPIPE; the child starts clean.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
        close(fds[0])
        defer { close(fds[1]) }
        guard spawned == 0 else { return nil }
        if let input { _ = input.withCString { write(fds[1], $0, strlen($0)) } }
        return pid
    }

    static func isRunning(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
    }

    /// SIGTERM, then the process reaped.
    static func end(_ pid: pid_t) {
        guard isRunning(pid) else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Where GNOME Keyring keeps this service's keyrings.
    package var keyringDirectory: String { directory + "/data/keyrings" }

    /// Ends the bus (GNOME Keyring leaves with it) and deletes the keyrings.
    package func stop() {
        Self.end(bus)
        if let previousAddress { setenv("DBUS_SESSION_BUS_ADDRESS", previousAddress, 1) } else { unsetenv("DBUS_SESSION_BUS_ADDRESS") }
        // GNOME Keyring leaves with the bus, and may write its files as it goes: removed again
        // until gone (bounded: half a second).
        for _ in 0..<50 {
            try? FileManager.default.removeItem(atPath: directory)
            guard FileManager.default.fileExists(atPath: directory) else { return }
            usleep(10_000)
        }
    }
}
