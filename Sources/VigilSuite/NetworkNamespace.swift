import CVigilSystem
import Foundation

/// The network of its own that `vigil simulate --client` runs in: the whole run (the simulated
/// hosts, their listeners and the client) is executed again in new user, network and mount
/// namespaces, made by util-linux's `unshare` for that run and gone when it ends. Inside there is only loopback, and every IPv4 address is local: the
/// simulated hosts answer on theirs, ``VigilSimulator/OtherHostRecorder`` on every other one
/// (a crash reporter, an update check, a telemetry endpoint, a second loopback address), and
/// nothing the client sends leaves the machine. `--no-network-namespace` runs in the machine's
/// own network, reported as a weaker judgement.
///
/// Chosen over a veth pair or a TUN device: the run needs no address outside loopback, and a
/// namespace holding the whole run needs no bridge between two networks.
public enum NetworkNamespace {
    /// Set in the run executed again inside its namespace, to the network namespace it left
    /// (its inode): a value inherited into another network proves nothing.
    public static let variable = "VIGIL_SIMULATE_NETWORK_NAMESPACE"

    /// This process runs inside namespaces made for the run: the marker is set, this process's
    /// network namespace is not the one it names, nor the first process's (the machine's own),
    /// and it holds no interface but loopback; its mount namespace is not the machine's either.
    /// A marker inherited or forged into the machine's own network proves nothing: ``prepare()``
    /// never changes the machine's routes or mounts.
    public static var isInside: Bool {
        guard let value = ProcessInfo.processInfo.environment[variable], let outer = UInt64(value), let network = inode("/proc/self/ns/net"),
            network != outer
        else { return false }
        // As the machine's root, the first process's namespaces are readable; inside a user
        // namespace they are not (and then cannot be ours).
        if let first = inode("/proc/1/ns/net"), first == network { return false }
        if let first = inode("/proc/1/ns/mnt"), first == inode("/proc/self/ns/mnt") { return false }
        return onlyLoopback
    }

    /// The inode of a namespace file; nil when it cannot be read.
    static func inode(_ path: String) -> UInt64? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return UInt64(status.st_ino)
    }

    /// This process's network namespace holds no interface but `lo` (a new one).
    static var onlyLoopback: Bool {
        guard let devices = try? String(contentsOfFile: "/proc/self/net/dev", encoding: .utf8) else { return false }
        let names = devices.split(separator: "\n").dropFirst(2).compactMap { $0.split(separator: ":").first?.trimmingCharacters(in: .whitespaces) }
        return names == ["lo"]
    }

    /// The inode of this process's network namespace.
    static var currentNetwork: UInt64? { inode("/proc/self/ns/net") }

    /// util-linux's unshare.
    static let unshare = ["/usr/bin/unshare", "/bin/unshare"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// iproute2's ip.
    static let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The namespaces: a user namespace (root inside, with no capability over the machine's own
    /// network, even when run as root), a network namespace, and a mount namespace of its own
    /// (where the host's name-service sockets are hidden: ``prepare()``).
    static let options = ["--user", "--map-root-user", "--net", "--mount", "--propagation", "private"]

    /// Executes this program again, with the same arguments, in the new namespaces. Returns only
    /// when that cannot be done, with the reason: the whole preparation (loopback up, the route)
    /// is tried first in a throwaway namespace, so that a machine or container that cannot make
    /// it gets a message, not a failed run.
    public static func reexecute() -> SuiteError {
        guard let unshare else { return SuiteError(.networkNamespace, "util-linux's unshare is not installed") }
        guard let ip else { return SuiteError(.networkNamespace, "iproute2's ip is not installed (the namespace's routes are made with it)") }
        guard let outer = currentNetwork else { return SuiteError(.networkNamespace, "/proc/self/ns/net cannot be read") }
        let probe: (status: Int32, said: String)
        do {
            probe = try run(unshare, options + ["--", "/bin/sh", "-c", "\(ip) link set lo up && \(ip) route add local 0.0.0.0/0 dev lo"])
        } catch {
            return SuiteError(.networkNamespace, "\(unshare) cannot be run: \(error.localizedDescription)")
        }
        guard probe.status == 0 else {
            return SuiteError(
                .networkNamespace, "unshare \(options.joined(separator: " ")) fails here (\(probe.said.isEmpty ? "exit \(probe.status)" : probe.said))")
        }
        guard let program = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return SuiteError(.networkNamespace, "this program's own path cannot be read from /proc/self/exe")
        }
        setenv(variable, String(outer), 1)
        let arguments = [unshare] + options + ["--", program] + CommandLine.arguments.dropFirst()
        let cArguments = arguments.map { strdup($0) } + [nil]
        execv(unshare, cArguments)
        let reason = String(cString: strerror(errno))
        unsetenv(variable)
        return SuiteError(.networkNamespace, "\(unshare) cannot be executed: \(reason)")
    }

    /// The host's sockets that answer name lookups and messages outside the network (systemd-
    /// resolved, nscd, avahi, the system bus): hidden in the run's mount namespace, so that a
    /// name looked up there reaches no one outside.
    static let hostSockets = ["/run/systemd/resolve", "/run/nscd", "/run/avahi-daemon", "/run/dbus"]

    /// Inside: the loopback interface up (a new namespace has it down), and every IPv4 address
    /// made this namespace's own ("AnyIP": `ip route add local 0.0.0.0/0 dev lo`), so that a
    /// connection to any host reaches ``VigilSimulator/OtherHostRecorder`` instead of failing.
    public static func prepare() throws {
        guard isInside else {
            throw SuiteError(.networkNamespace, "this process is not in a network and mount namespace made for the run; the machine's own are never changed")
        }
        let result = vigil_loopback_up()
        guard result == 0 else {
            throw SuiteError(.networkNamespace, "the namespace's loopback cannot be brought up: \(String(cString: strerror(result)))")
        }
        guard let ip else { throw SuiteError(.networkNamespace, "iproute2's ip is not installed (the namespace's routes are made with it)") }
        let route: (status: Int32, said: String)
        do {
            route = try run(ip, ["route", "add", "local", "0.0.0.0/0", "dev", "lo"])
        } catch {
            throw SuiteError(.networkNamespace, "\(ip) cannot be run: \(error.localizedDescription)")
        }
        guard route.status == 0 else { throw SuiteError(.networkNamespace, "the namespace's route to every address cannot be made: \(route.said)") }
        for path in hostSockets where FileManager.default.fileExists(atPath: path) {
            guard mount("tmpfs", path, "tmpfs", UInt(MS_NOSUID | MS_NODEV), "mode=755") == 0 else {
                throw SuiteError(.networkNamespace, "\(path) cannot be hidden in the run's mount namespace: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Runs `path` with `arguments` to its end: its exit status and what it wrote to standard
    /// error (standard output dropped).
    static func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, said: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        try? errors.fileHandleForReading.close()
        process.waitUntilExit()
        return (process.terminationStatus, said)
    }
}
