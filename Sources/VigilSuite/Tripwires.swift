import Foundation
import Synchronization

/// Listening UNIX sockets of the suite's, one per path a client reaches for to leave its cell
/// (``ClientCell/tripwirePaths(uid:runtimeDirectory:)``), bound there in the cell. The kernel
/// hands every connection to the suite: each is accepted, recorded with the path it was made
/// to, and closed at once (nothing is answered). A client that never reaches out leaves none.
final class Tripwires: Sendable {
    /// A socket file of the suite's and the path it is bound to in the cell.
    struct Wire: Sendable {
        var socket: String
        var path: String
        var descriptor: Int32
    }

    let wires: [Wire]
    private let attempts = Mutex<[String]>([])
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    /// Listens on a socket in `directory` for each of `paths`.
    init(directory: String, paths: [String]) throws {
        var wires: [Wire] = []
        for (index, path) in paths.enumerated() {
            let socket = directory + "/tripwire-\(index).sock"
            unlink(socket)
            let descriptor = Self.listen(at: socket)
            guard descriptor >= 0 else {
                wires.forEach { close($0.descriptor) }
                throw SuiteError(.workDirectory, "the cell's tripwire \(socket) cannot listen (\(String(cString: strerror(errno))))")
            }
            wires.append(Wire(socket: socket, path: path, descriptor: descriptor))
        }
        self.wires = wires
        let watcher = Thread { [self] in
            watch()
            finished.store(true, ordering: .sequentiallyConsistent)
        }
        watcher.name = "vigil-tripwires"
        watcher.start()
    }

    /// The paths connected to, in order (each once).
    var tripped: [String] {
        // A connection made just before the client ended is accepted within the poll's 50 ms.
        Thread.sleep(forTimeInterval: 0.1)
        return attempts.withLock { $0 }
    }

    /// Stops listening; the sockets are removed.
    func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        // The watcher sees the flag within its poll's timeout, then closes the sockets.
        while !finished.load(ordering: .sequentiallyConsistent) { Thread.sleep(forTimeInterval: 0.01) }
        for wire in wires { unlink(wire.socket) }
    }

    deinit { stop() }

    private func watch() {
        var polled = wires.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
        while !stopped.load(ordering: .sequentiallyConsistent) {
            guard poll(&polled, nfds_t(polled.count), 50) > 0 else { continue }
            for (index, entry) in polled.enumerated() where entry.revents & Int16(POLLIN) != 0 {
                let connection = accept(entry.fd, nil, nil)
                guard connection >= 0 else { continue }
                close(connection)
                let path = wires[index].path
                attempts.withLock { if !$0.contains(path) { $0.append(path) } }
            }
        }
        for wire in wires { close(wire.descriptor) }
    }

    /// A listening stream socket at `path` (readable and writable by all: the cell's user is
    /// another user namespace's), or -1.
    static func listen(at path: String) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            errno = ENAMETOOLONG
            return -1
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, chmod(path, 0o666) == 0, Glibc.listen(descriptor, 16) == 0 else {
            let saved = errno
            close(descriptor)
            errno = saved
            return -1
        }
        return descriptor
    }
}
