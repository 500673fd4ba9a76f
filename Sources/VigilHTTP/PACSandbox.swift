import FoundationEssentials
import Glibc
import VigilPaths
import VigilText

/// The cell a proxy auto-config file's evaluator runs in. A PAC file may come over plain http,
/// from anyone on the way: its JavaScript engine (Debian's pactester, an old SpiderMonkey) is
/// given nothing of the user's. Debian's bubblewrap (`bwrap`, the sandbox Flatpak uses) makes
/// it: new user, mount, network, PID, IPC, UTS and cgroup namespaces; every capability dropped
/// and NO_NEW_PRIVS (bwrap sets it); a file system of the system's programs and libraries read
/// only (`/usr`, and `/lib`, `/bin`... as the system has them), a private `/etc` of two files, an
/// empty `/tmp`, a minimal `/dev`; no HOME, no keyring, no `/run`, no bus, no network but a
/// loopback that is down; an empty environment; the limits of ``LimitedProcess`` (memory, CPU,
/// time) around it. Chosen over a namespace-and-seccomp helper of Vigil's own: bwrap is made
/// for exactly this, kept by Flatpak's maintainers, and in Debian.
///
/// Names: `dnsResolve`, `isResolvable` and `isInNet` of the URL's host are answered by Vigil
/// (resolved here, as the unconfined engine would have, and written to the cell's `/etc/hosts`),
/// only when the script names one of them; every other name is unresolvable inside.
/// `myIpAddress()` is the address this machine would use toward the host (`-c`).
enum PACSandbox {
    /// Debian's bubblewrap.
    static let bubblewrap: String? = ["/usr/bin/bwrap", "/bin/bwrap"].first { (path: String) in access(path, X_OK) == 0 }

    /// What the cell shows of the system: the programs and libraries, read only.
    static let systemPaths = ["/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin"]

    /// The bwrap arguments that run `command` (its first word the evaluator) in the cell, with
    /// `etc` (a directory of this process's) as its `/etc`.
    static func arguments(_ command: [String], etc: String) -> [String]? {
        guard let bubblewrap, let evaluator = command.first else { return nil }
        var arguments = [
            bubblewrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--uid", "65534", "--gid", "65534",
            "--hostname", "vigil-pac", "--chdir", "/",
        ]
        for path in systemPaths {
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFLNK, let target = linkTarget(path) {
                arguments += ["--symlink", target, path]
            } else if info.st_mode & S_IFMT == S_IFDIR {
                arguments += ["--ro-bind", path, path]
            }
        }
        arguments += ["--ro-bind", etc, "/etc", "--dev", "/dev", "--tmpfs", "/tmp"]
        // An evaluator outside the system's folders (a stand-in for tests): that file alone.
        if !systemPaths.contains(where: { evaluator.hasPrefix($0 + "/") }) { arguments += ["--ro-bind", evaluator, evaluator] }
        return arguments + ["--"] + command
    }

    /// The cell's `/etc`: `hosts` (the cell's own name, and the answers Vigil gives) and
    /// `nsswitch.conf` (names from that file only), in a new private directory; its path.
    static func makeEtc(answers: [(address: String, name: String)]) throws -> String {
        let base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        guard let directory = PrivateFile.makeDirectory(in: base, prefix: "vigil-pac") else {
            throw HTTPError(.proxy, "No private directory for the PAC evaluator's cell could be made in \(base) (\(String(cString: strerror(errno)))).")
        }
        let hosts = (["127.0.0.1 localhost vigil-pac", "::1 localhost"] + answers.map { "\($0.address) \($0.name)" }).joined(separator: "\n") + "\n"
        for (name, text) in [("hosts", hosts), ("nsswitch.conf", "hosts: files\n")] {
            guard FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(text.utf8), attributes: [.posixPermissions: 0o644]) else {
                removeEtc(directory)
                throw HTTPError(.proxy, "The PAC evaluator's cell cannot be prepared in \(directory).")
            }
        }
        return directory
    }

    static func removeEtc(_ directory: String) {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Whether `script` asks for names to be resolved (its answers then come from Vigil).
    static func resolvesNames(_ script: String) -> Bool {
        ["dnsResolve", "isResolvable", "isInNet"].contains { script.contains($0) }
    }

    /// The addresses of `host`, resolved here (a name with host characters only; none for an
    /// address or anything else).
    static func addresses(of host: String) -> [String] {
        guard HostName.isPlain(host), !ProxyChoice.isAddress(host) else { return [] }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var found: [String] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            if let text = numericHost(entry.pointee.ai_addr, length: entry.pointee.ai_addrlen), !found.contains(text) { found.append(text) }
            next = entry.pointee.ai_next
        }
        return found
    }

    /// The local address this machine would use toward `address` (a UDP socket connected, which
    /// sends nothing: the kernel's route lookup), as browsers compute `myIpAddress()`.
    static func localAddress(toward address: String) -> String? {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address, "9", &hints, &list) == 0, let entry = list else { return nil }
        defer { freeaddrinfo(entry) }
        let socket = Glibc.socket(entry.pointee.ai_family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        guard connect(socket, entry.pointee.ai_addr, entry.pointee.ai_addrlen) == 0 else { return nil }
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        guard named == 0 else { return nil }
        return withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { numericHost($0, length: length) } }
    }

    static func numericHost(_ address: UnsafePointer<sockaddr>?, length: socklen_t) -> String? {
        guard let address else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
