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
/// Inside, nftables (Debian's `nft`) redirects every TCP connection and UDP datagram to a port
/// outside the ephemeral range (where the simulated hosts listen) to the recorder, and every DNS
/// question to an address that is not a scenario's name server to the run's own
/// (``VigilSimulator/NameServer``), which answers every name with an address the recorder owns.
/// Each client runs with a resolver file of its own bound over `/etc/resolv.conf` in its cell
/// (``ClientCell``): its scenario's name server, which answers the scenario's host names.
///
/// Chosen over a veth pair or a TUN device: the run needs no address outside loopback, and a
/// namespace holding the whole run needs no bridge between two networks; nftables' redirect
/// keeps the kernel's TCP (a TUN device would need a TCP stack of our own to complete
/// connections), and the address dialled stays readable (`SO_ORIGINAL_DST`).
package enum NetworkNamespace {
    /// Set in the run executed again inside its namespace, to the network namespace it left
    /// (its inode): a value inherited into another network proves nothing.
    package static let variable = "VIGIL_SIMULATE_NETWORK_NAMESPACE"

    /// This process runs inside namespaces made for the run: ``proof`` found nothing against it.
    /// A marker inherited or forged into any other namespace proves nothing: ``prepare()`` and
    /// every change of routes or mounts ask this first, on every path of the command.
    package static var isInside: Bool { proof == nil }

    /// ``proofFailure(alone:)`` with the alone check, made once, at the first question: before the
    /// run starts any process (later, the run's own clients share its namespaces).
    package static let proof: String? = proofFailure(alone: true)

    /// Why this process is not proved to run inside namespaces made for the run, from what the
    /// kernel says, never from an environment variable alone (nor from `/proc/1`, which a
    /// container may not let even root read); nil when it is: the marker is set and names
    /// another network namespace than this one; this process's user namespace is not the
    /// machine's (its `uid_map` does not map every id); its network and mount namespaces are
    /// owned by that user namespace (ioctl NS_GET_USERNS: made after it, by the run's
    /// `unshare`, so that nothing done in them reaches the machine's); and the network holds
    /// no interface but loopback.
    /// `alone`: also no other process in this network or mount namespace (asked once, before the
    /// run starts anything: a namespace someone else made, a rootless container's, has others).
    package static func proofFailure(alone: Bool = false) -> String? {
        guard let value = ProcessInfo.processInfo.environment[variable], let outer = UInt64(value) else { return "the run's marker is not set" }
        guard let network = inode("/proc/self/ns/net") else { return "/proc/self/ns/net cannot be read" }
        guard network != outer else { return "this process is in the network namespace the run started in" }
        guard !userNamespaceIsInitial else { return "this process's user namespace is the machine's own (its uid_map maps every id)" }
        for (kind, path) in [("network", "/proc/self/ns/net"), ("mount", "/proc/self/ns/mnt")] {
            let owned = vigil_namespace_owned_by_own_user_namespace(path)
            guard owned == 1 else {
                return owned == 0
                    ? "its \(kind) namespace is not owned by its own user namespace (the kernel's NS_GET_USERNS): it was not made by the run"
                    : "the kernel cannot say who owns its \(kind) namespace (\(String(cString: strerror(-owned))))"
            }
        }
        guard onlyLoopback else { return "its network namespace holds an interface other than loopback" }
        if alone, let other = otherProcess(sharing: ["net", "mnt"]) {
            return "another process (PID \(other)) shares its namespaces: they were not made for this run"
        }
        return nil
    }

    /// A process other than this one in this process's namespaces of `kinds`, by their inodes
    /// (a process whose namespaces cannot be read is not in a user namespace of this one's).
    static func otherProcess(sharing kinds: [String]) -> Int32? {
        let own = kinds.compactMap { inode("/proc/self/ns/\($0)") }
        guard own.count == kinds.count, let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        let me = getpid()
        for entry in entries {
            guard let pid = Int32(entry), pid != me else { continue }
            for (kind, inode) in zip(kinds, own) where Self.inode("/proc/\(pid)/ns/\(kind)") == inode { return pid }
        }
        return nil
    }

    /// This process's user namespace is the machine's: `/proc/self/uid_map` maps all 2^32 - 1
    /// ids from 0 to 0 (or cannot be read: not proved otherwise).
    static var userNamespaceIsInitial: Bool {
        guard let map = try? String(contentsOfFile: "/proc/self/uid_map", encoding: .utf8) else { return true }
        let lines = map.split(separator: "\n").map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }) }
        return lines.count == 1 && lines[0] == ["0", "0", "4294967295"]
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
    /// nftables' nft.
    static let nft = ["/usr/sbin/nft", "/sbin/nft", "/usr/bin/nft"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Where the scenarios' name servers answer: 127.53.0.N, one address per scenario played at once.
    package static let nameServerNetwork = "127.53.0.0/16"
    /// The run's own name server (every DNS question to another address is redirected to it).
    package static let runNameServer = "127.0.0.1"

    /// The namespaces: a user namespace (root inside, with no capability over the machine's own
    /// network, even when run as root), a network namespace, and a mount namespace of its own
    /// (where the host's name-service sockets are hidden: ``prepare()``).
    static let options = ["--user", "--map-root-user", "--net", "--mount", "--propagation", "private"]

    /// Executes this program again, with the same arguments, in the new namespaces. Returns only
    /// when that cannot be done, with the reason: the whole preparation (loopback up, the route)
    /// is tried first in a throwaway namespace, so that a machine or container that cannot make
    /// it gets a message, not a failed run.
    package static func reexecute() -> SuiteError {
        guard let unshare else { return SuiteError(.networkNamespace, "util-linux's unshare is not installed") }
        guard let ip else { return SuiteError(.networkNamespace, "iproute2's ip is not installed (the namespace's routes are made with it)") }
        guard let nft else { return SuiteError(.networkNamespace, "nftables' nft is not installed (the namespace's redirects are made with it)") }
        guard let outer = currentNetwork else { return SuiteError(.networkNamespace, "/proc/self/ns/net cannot be read") }
        let probe: (status: Int32, said: String)
        do {
            probe = try run(
                unshare,
                options + ["--", "/bin/sh", "-c", "\(ip) link set lo up && \(ip) route add local 0.0.0.0/0 dev lo && \(nft) add table inet vigil-probe"])
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
    /// Returns whether every IPv6 address is local too (the machine has IPv6).
    @discardableResult
    package static func prepare() throws -> Bool {
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
        // Every IPv6 address too, where the machine has IPv6 (else IPv6 is unreachable: nothing leaves).
        let ipv6 = (try? run(ip, ["-6", "route", "add", "local", "::/0", "dev", "lo"]))?.status == 0
        for path in hostSockets where FileManager.default.fileExists(atPath: path) {
            guard mount("tmpfs", path, "tmpfs", UInt(MS_NOSUID | MS_NODEV), "mode=755") == 0 else {
                throw SuiteError(.networkNamespace, "\(path) cannot be hidden in the run's mount namespace: \(String(cString: strerror(errno)))")
            }
        }
        return ipv6
    }

    /// The namespace's ephemeral port range (where every listener on port 0 gets its port).
    static func ephemeralPorts() -> ClosedRange<Int> {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let numbers = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).compactMap { Int($0) }
        guard numbers.count == 2, numbers[0] > 0, numbers[0] <= numbers[1] else { return 32768...60999 }
        return numbers[0]...numbers[1]
    }

    /// Inside: connections to `alias`, port 443, reach `address`:`port` (a scenario's host under
    /// its name and the usual port), until ``unmap(_:)``.
    static func map(_ alias: String, to address: String, port: Int) throws {
        guard isInside, let nft else { throw SuiteError(.networkNamespace, "this process is not in a network namespace made for the run") }
        var added = try run(nft, ["add", "element", "inet", "vigil", "names", "{ \(alias) . 443 : \(address) . \(port) }"])
        if added.status != 0 {
            // Left by an earlier scenario whose removal failed: replaced.
            _ = try run(nft, ["delete", "element", "inet", "vigil", "names", "{ \(alias) . 443 }"])
            added = try run(nft, ["add", "element", "inet", "vigil", "names", "{ \(alias) . 443 : \(address) . \(port) }"])
        }
        guard added.status == 0 else { throw SuiteError(.networkNamespace, "\(alias):443 cannot be mapped to \(address):\(port): \(added.said)") }
    }

    /// Inside: `alias`, port 443, reaches no host any more.
    static func unmap(_ alias: String) {
        guard isInside, let nft else { return }
        _ = try? run(nft, ["delete", "element", "inet", "vigil", "names", "{ \(alias) . 443 }"])
    }

    /// The namespace's nftables rules: a scenario's host names on port 443 (the `names` map, one
    /// element per host while its scenario plays); DNS to any address but a scenario's name server to the
    /// run's (127.0.0.1:53); every other TCP connection and UDP datagram to a port outside the
    /// ephemeral range to the recorder's ports.
    static func rules(tcpPort: Int, udpPort: Int, ipv6: (tcp: Int, udp: Int)?, ephemeral: ClosedRange<Int>) -> String {
        let range = "\(ephemeral.lowerBound)-\(ephemeral.upperBound)"
        // IPv6 (where the machine has it): the same, to the recorder's and the name server's ::1.
        let six =
            ipv6.map {
                """
                        meta nfproto ipv6 udp dport 53 redirect to :53
                        meta nfproto ipv6 tcp dport != \(range) redirect to :\($0.tcp)
                        meta nfproto ipv6 udp dport != \(range) redirect to :\($0.udp)

                """
            } ?? ""
        return """
            table inet vigil {
                map names { type ipv4_addr . inet_service : ipv4_addr . inet_service; }
                chain output {
                    type nat hook output priority -100; policy accept;
                    meta nfproto ipv4 dnat ip to ip daddr . tcp dport map @names
                    meta nfproto ipv4 udp dport 53 ip daddr != \(nameServerNetwork) redirect to :53
                    meta nfproto ipv4 udp dport 53 accept
                    meta nfproto ipv4 tcp dport != \(range) redirect to :\(tcpPort)
                    meta nfproto ipv4 udp dport != \(range) redirect to :\(udpPort)
            \(six)        }
            }

            """
    }

    /// Inside: every connection and datagram that is not for a simulated host redirected to the
    /// recorder (``rules(tcpPort:udpPort:ephemeral:)``), the ruleset written to `directory`.
    package static func redirect(tcpPort: Int, udpPort: Int, ipv6: (tcp: Int, udp: Int)?, directory: String) throws {
        guard isInside else { throw SuiteError(.networkNamespace, "this process is not in a network namespace made for the run") }
        guard let nft else { throw SuiteError(.networkNamespace, "nftables' nft is not installed (the namespace's redirects are made with it)") }
        let file = directory + "/namespace.nft"
        do {
            try rules(tcpPort: tcpPort, udpPort: udpPort, ipv6: ipv6, ephemeral: ephemeralPorts()).write(toFile: file, atomically: true, encoding: .utf8)
        } catch {
            throw SuiteError(.networkNamespace, "cannot write \(file): \(error.localizedDescription)")
        }
        let loaded: (status: Int32, said: String)
        do { loaded = try run(nft, ["-f", file]) } catch { throw SuiteError(.networkNamespace, "\(nft) cannot be run: \(error.localizedDescription)") }
        guard loaded.status == 0 else { throw SuiteError(.networkNamespace, "the namespace's redirects cannot be made: \(loaded.said)") }
    }

    /// Inside: the file `/etc/resolv.conf` leads to (its links followed), where each client's
    /// resolver file is bound; created in the run's mount namespace when it lies in a folder
    /// hidden there (systemd-resolved's stub file); the run's own resolver file (the run's name
    /// server) bound over it, written to `directory`.
    package static func useNameServer(directory: String) throws -> String {
        guard isInside else { throw SuiteError(.networkNamespace, "this process is not in a mount namespace made for the run") }
        let target = URL(fileURLWithPath: "/etc/resolv.conf").resolvingSymlinksInPath().path
        if !FileManager.default.fileExists(atPath: target) {
            guard hostSockets.contains(where: { target.hasPrefix($0 + "/") }), FileManager.default.createFile(atPath: target, contents: Data()) else {
                throw SuiteError(.networkNamespace, "/etc/resolv.conf leads to \(target), which does not exist; the clients' name server cannot be set")
            }
        }
        let file = try resolverFile(nameServer: runNameServer, directory: directory, name: "resolv.conf")
        guard mount(file, target, nil, UInt(MS_BIND), nil) == 0 else {
            throw SuiteError(.networkNamespace, "the run's resolver file cannot be bound over \(target): \(String(cString: strerror(errno)))")
        }
        return target
    }

    /// A resolver file naming one name server, one try of one second (a name server that does not
    /// answer is never the point), written as `directory/name`; its path.
    package static func resolverFile(nameServer: String, directory: String, name: String) throws -> String {
        let file = directory + "/" + name
        do {
            try "nameserver \(nameServer)\noptions timeout:1 attempts:1\n".write(toFile: file, atomically: true, encoding: .utf8)
        } catch {
            throw SuiteError(.networkNamespace, "cannot write \(file): \(error.localizedDescription)")
        }
        return file
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
