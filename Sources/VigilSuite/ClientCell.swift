import CVigilSystem
import Foundation
import VigilPaths

/// The cell a client under `vigil simulate --client` runs in, made by Debian's bubblewrap
/// (`bwrap`) for each run of the client: CI runs client builds from branches, so a client that
/// tries to leave must fail, and the judge must say it tried.
///
/// - A user namespace of its own below the run's, with no capability (`--cap-drop ALL`, bwrap
///   sets NO_NEW_PRIVS): it cannot mount, unmount, or change what it sees; the mounts it was
///   given came from a more privileged namespace and are locked together (the kernel refuses to
///   take a mask off what is under it). PID, IPC, UTS and cgroup namespaces of its own; the
///   network is the run's (only loopback, every host the simulator's).
/// - The file system read only (`/` bound read only), with empty `/run`, `/tmp`, `/var/tmp`,
///   `/home`, `/root`, `/mnt`, `/media` and the invoker's home (so `/run/systemd`, `/run/user`,
///   the system and session buses, the invoker's runtime directory, X11's sockets, an ssh or gpg
///   agent's socket, keyrings are not there: a path socket is reached through the file system,
///   whatever the network namespace), a minimal `/dev`, its own `/proc`; only its scratch
///   directory (home, sync folder, CA file) writable; the client's program alone (never its
///   folder) bound read only when it lies in a masked one. Abstract sockets (X11's, D-Bus's)
///   are per network namespace: the run's has none of the machine's (with
///   `--no-network-namespace` they are within reach: docs/threat-model.md).
/// - A new, empty session keyring (``CellExec``: `vigil-simulator --cell-enter` makes it, then
///   executes bwrap): the invoker's kernel keys are not the client's, nor bwrap's own.
/// - Tripwires (``Tripwires``): listening sockets of the suite's at the paths a client reaches
///   for to leave (the system bus, systemd's private socket, the session bus, Wayland, X11):
///   every connection to one is recorded, and the judge reports it (`cell-escape-attempt`).
/// - A system-call filter (``CellExec``, seccomp's user notification): a mount, setns, module
///   loading, kexec or a call of another architecture's ABI by any process of the client is
///   refused and recorded the same way.
/// - The resolver file of its scenario bound over `/etc/resolv.conf`'s target.
///
/// What it does not contain: the kernel itself (a kernel bug is outside any namespace), the CPU
/// and memory (the run's timeout kills it), and what the run's network carries (the judge's).
package struct ClientCell {
    /// Why bubblewrap cannot make the cell here, or nil: missing, or older than 0.8.0 (no
    /// `--disable-userns`, which keeps the cell from making user namespaces of its own).
    package static let problem: String? = {
        guard let bubblewrap else {
            return "Debian's bubblewrap (bwrap), which makes the cell every client under test runs in, is not installed (apt-get install bubblewrap)"
        }
        // vigil_run_limited (fork, exec, wait), not Foundation's Process: this runs before the
        // run executes itself again, and Foundation's child watching does not survive that.
        var output = [CChar](repeating: 0, count: 16384)
        var length = 0
        var status: Int32 = 0
        let arguments = [strdup(bubblewrap), strdup("--help"), nil]
        defer { arguments.forEach { free($0) } }
        let started = output.withUnsafeMutableBufferPointer { buffer in
            vigil_run_limited(bubblewrap, arguments, nil, nil, 0, buffer.baseAddress, buffer.count, &length, 5000, 256 << 20, 2, &status)
        }
        guard started == 0 else { return "\(bubblewrap) cannot be run (\(String(cString: strerror(started))))" }
        let help = String(decoding: output.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return help.contains("--disable-userns")
            ? nil : "\(bubblewrap) is older than 0.8.0 (it has no --disable-userns); the cell needs 0.8.0 or later (Debian 12's)"
    }()

    /// Debian's bubblewrap.
    package static let bubblewrap: String? = ["/usr/bin/bwrap", "/bin/bwrap"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Emptied in the cell (tmpfs): where the machine's sockets, buses and runtime directories
    /// are, and the users' homes (an ssh or gpg agent's socket, keyrings): the invoker's too.
    static var masked: [String] {
        var paths = ["/run", "/tmp", "/var/tmp", "/home", "/root", "/mnt", "/media"]
        let homes = [ProcessInfo.processInfo.environment["HOME"], XDGDirectories.passwordDatabaseHome()].compactMap { $0 }
        for home in homes where home.hasPrefix("/") && home != "/" && !paths.contains(where: { home == $0 || home.hasPrefix($0 + "/") }) {
            paths.append(home)
        }
        return paths
    }

    /// The paths in the cell where a tripwire listens: what a client reaches for to leave it.
    static func tripwirePaths(uid: uid_t = getuid(), runtimeDirectory: String? = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"]) -> [String] {
        var paths = [
            "/run/dbus/system_bus_socket", "/run/systemd/private", "/run/systemd/notify", "/run/user/\(uid)/bus", "/run/user/\(uid)/wayland-0",
            "/run/user/\(uid)/systemd/private", "/run/user/\(uid)/pulse/native", "/tmp/.X11-unix/X0",
        ]
        if let runtimeDirectory, !runtimeDirectory.isEmpty, runtimeDirectory.hasPrefix("/"), !paths.contains(runtimeDirectory + "/bus") {
            paths.append(runtimeDirectory + "/bus")
        }
        return paths
    }

    /// The binds that show the cell, read only, what the command names where a mask hides it
    /// (the program, the helper, a script or a file given as an argument, by the path given and
    /// by the one a link leads to): its folder, so that a script finds what lies beside it, unless
    /// that folder is a mask itself or a home (`/tmp`, `/root`, the invoker's home: an agent's
    /// socket, a key), where the file alone is shown.
    static func shown(_ paths: [String]) -> [String] {
        let masked = masked
        let homes = Set(masked + ["/home"] + ((try? FileManager.default.contentsOfDirectory(atPath: "/home")) ?? []).map { "/home/" + $0 })
        let isMasked = { (path: String) in masked.contains { path.hasPrefix($0 + "/") } }
        var binds: [String] = []
        var seen = Set<String>()
        for given in paths {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: given, isDirectory: &isFolder) else { continue }
            let real = URL(fileURLWithPath: given).resolvingSymlinksInPath().path
            for (source, target) in [(real, real), (real, given)] where isMasked(target) {
                let folder = isFolder.boolValue ? target : PathName.directory(of: target)
                let sourceFolder = isFolder.boolValue ? source : PathName.directory(of: source)
                let (from, to) = homes.contains(folder) || folder == "/" ? (source, target) : (sourceFolder, folder)
                if seen.insert(to).inserted { binds += ["--ro-bind", from, to] }
            }
        }
        return binds
    }

    /// `path` (a `PATH` value) without its folders that the cell masks: the client finds the
    /// system's programs, never a shim in the invoker's home that needs the rest of it
    /// (pyenv's, say); its own program is found beside, that file alone bound.
    static func visiblePath(_ path: String) -> String {
        let masked = masked
        let kept = path.split(separator: ":").map(String.init).filter { folder in
            folder.hasPrefix("/") && !masked.contains { folder == $0 || folder.hasPrefix($0 + "/") }
        }
        return kept.isEmpty ? "/usr/local/bin:/usr/bin:/bin" : kept.joined(separator: ":")
    }

    /// What is at a tripwire's path on a machine.
    static func describe(_ path: String) -> String {
        if path.hasSuffix("/system_bus_socket") { return "the system bus" }
        if path.hasPrefix("/run/systemd/") { return "systemd" }
        if path.hasSuffix("/systemd/private") { return "the user's systemd" }
        if path.hasSuffix("/bus") { return "the invoker's session bus" }
        if path.contains("wayland") || path.contains(".X11-unix") { return "a display server" }
        if path.contains("pulse") { return "the sound server" }
        return "a socket outside the cell"
    }

    /// The bwrap arguments that run `command` in the cell: `writable` bound read-write (the
    /// client's scratch directory), the tripwires' sockets at their paths, the resolver file
    /// over its target. `executable` is the program the command names (that file alone bound
    /// read only when it lies in a masked folder).
    static func arguments(
        _ command: [String], executable: String, writable: [String], tripwires: Tripwires, resolver: (file: String, target: String)?
    ) -> [String]? {
        guard let bubblewrap, let helper = CellExec.helper else { return nil }
        var arguments = [
            bubblewrap, "--unshare-user", "--disable-userns", "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try", "--die-with-parent",
            "--new-session", "--cap-drop", "ALL", "--hostname", "vigil-client", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        ]
        for path in masked {
            var info = stat()
            // A real folder (a symbolic link to one is masked where it leads).
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { continue }
            arguments += ["--tmpfs", path]
        }
        arguments += shown([executable, helper] + command.dropFirst().filter { $0.hasPrefix("/") })
        for path in writable { arguments += ["--bind", path, path] }
        if let resolver { arguments += ["--ro-bind", resolver.file, resolver.target] }
        for wire in tripwires.wires { arguments += ["--bind", wire.socket, wire.path] }
        arguments += ["--bind", tripwires.filterSocket, CellExec.socketInCell]
        return CellExec.entering(arguments + ["--chdir", writable.first ?? "/", "--"] + CellExec.wrapping(command, helper: helper), helper: helper)
    }
}
