import CVigilSystem
import Foundation

/// The network of its own that `vigil simulate --client` runs in: the whole run (the simulated
/// hosts, their listeners and the client) is executed again in a new network namespace (and a
/// user namespace of its own when not run as root), made by util-linux's `unshare` for that run
/// and gone when it ends. Inside there is only loopback, and every IPv4 address is local: the
/// simulated hosts answer on theirs, ``VigilSimulator/OtherHostRecorder`` on every other one
/// (a crash reporter, an update check, a telemetry endpoint, a second loopback address), and
/// nothing the client sends leaves the machine. `--no-network-namespace` runs in the machine's
/// own network, reported as a weaker judgement.
///
/// Chosen over a veth pair or a TUN device: the run needs no address outside loopback, and a
/// namespace holding the whole run needs no bridge between two networks.
public enum NetworkNamespace {
    /// Set in the run executed again inside its namespace.
    public static let variable = "VIGIL_SIMULATE_NETWORK_NAMESPACE"

    /// This process runs inside the namespace made for the run.
    public static var isInside: Bool { ProcessInfo.processInfo.environment[variable] == "1" }

    /// util-linux's unshare.
    static let unshare = ["/usr/bin/unshare", "/bin/unshare"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The options that make the namespaces: a network namespace, in a user namespace of its own
    /// (root inside) when this process is not root.
    static var options: [String] { geteuid() == 0 ? ["--net"] : ["--user", "--map-root-user", "--net"] }

    /// Executes this program again, with the same arguments, in a new network namespace. Returns
    /// only when that cannot be done, with the reason (a probe is run first, so that a machine
    /// without user namespaces gets a message, not a failed run).
    public static func reexecute() -> SuiteError {
        guard let unshare else { return SuiteError(.networkNamespace, "util-linux's unshare is not installed") }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: unshare)
        probe.arguments = options + ["--", "/bin/true"]
        let errors = Pipe()
        probe.standardError = errors
        probe.standardOutput = FileHandle.nullDevice
        do {
            try probe.run()
            probe.waitUntilExit()
        } catch {
            return SuiteError(.networkNamespace, "\(unshare) cannot be run: \(error.localizedDescription)")
        }
        guard probe.terminationStatus == 0 else {
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return SuiteError(
                .networkNamespace, "unshare \(options.joined(separator: " ")) fails here (\(said.isEmpty ? "exit \(probe.terminationStatus)" : said))")
        }
        guard let program = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
            return SuiteError(.networkNamespace, "this program's own path cannot be read from /proc/self/exe")
        }
        setenv(variable, "1", 1)
        let arguments = [unshare] + options + ["--", program] + CommandLine.arguments.dropFirst()
        let cArguments = arguments.map { strdup($0) } + [nil]
        execv(unshare, cArguments)
        let reason = String(cString: strerror(errno))
        unsetenv(variable)
        return SuiteError(.networkNamespace, "\(unshare) cannot be executed: \(reason)")
    }

    /// Inside: the loopback interface up (a new namespace has it down), and every IPv4 address
    /// made this namespace's own ("AnyIP": `ip route add local 0.0.0.0/0 dev lo`), so that a
    /// connection to any host reaches ``VigilSimulator/OtherHostRecorder`` instead of failing.
    public static func prepare() throws {
        let result = vigil_loopback_up()
        guard result == 0 else {
            throw SuiteError(.networkNamespace, "the namespace's loopback cannot be brought up: \(String(cString: strerror(result)))")
        }
        guard let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw SuiteError(.networkNamespace, "iproute2's ip is not installed (the namespace's routes are made with it)")
        }
        let route = Process()
        route.executableURL = URL(fileURLWithPath: ip)
        route.arguments = ["route", "add", "local", "0.0.0.0/0", "dev", "lo"]
        let errors = Pipe()
        route.standardError = errors
        do {
            try route.run()
            route.waitUntilExit()
        } catch {
            throw SuiteError(.networkNamespace, "\(ip) cannot be run: \(error.localizedDescription)")
        }
        guard route.terminationStatus == 0 else {
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw SuiteError(.networkNamespace, "the namespace's route to every address cannot be made: \(said)")
        }
    }
}
