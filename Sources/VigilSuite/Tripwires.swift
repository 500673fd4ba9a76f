import CVigilSystem
import Foundation
import Synchronization

/// What a client in its cell reached for outside it, as the kernel hands it to the suite:
/// - listening UNIX sockets of the suite's, one per path a client reaches for to leave
///   (``ClientCell/tripwirePaths(uid:runtimeDirectory:)``), bound there in the cell: each
///   connection is accepted, recorded with its path and closed at once (nothing is answered);
/// - the cell's system-call filter (``CellExec``): its listener arrives on ``filterSocket``
///   before the client starts, and every filtered call (a mount, setns...) of the client or any
///   process of it is recorded and refused (EPERM).
/// A client that never reaches out leaves no record.
final class Tripwires: Sendable {
    /// A socket file of the suite's and the path it is bound to in the cell.
    struct Wire: Sendable {
        var socket: String
        var path: String
        var descriptor: Int32
    }

    let wires: [Wire]
    /// Where ``CellExec`` hands over the filter's listener (bound at ``CellExec/socketInCell``).
    let filterSocket: String
    private let filterDescriptor: Int32
    private let attempts = Mutex<[String]>([])
    private let filtered = Atomic<Bool>(false)
    private let stopped = Atomic<Bool>(false)
    private let finished = Atomic<Bool>(false)

    /// Listens on a socket in `directory` for each of `paths`, and for the filter's listener.
    init(directory: String, paths: [String]) throws {
        var wires: [Wire] = []
        let filterSocket = directory + "/filter.sock"
        unlink(filterSocket)
        let filterDescriptor = Self.listen(at: filterSocket)
        guard filterDescriptor >= 0 else {
            throw SuiteError(.clientCell, "the cell's filter socket \(filterSocket) cannot listen (\(String(cString: strerror(errno))))")
        }
        for (index, path) in paths.enumerated() {
            let socket = directory + "/tripwire-\(index).sock"
            unlink(socket)
            let descriptor = Self.listen(at: socket)
            guard descriptor >= 0 else {
                let saved = errno
                (wires.map(\.descriptor) + [filterDescriptor]).forEach { close($0) }
                (wires.map(\.socket) + [filterSocket]).forEach { unlink($0) }
                throw SuiteError(.clientCell, "the cell's tripwire \(socket) cannot listen (\(String(cString: strerror(saved))))")
            }
            wires.append(Wire(socket: socket, path: path, descriptor: descriptor))
        }
        self.wires = wires
        self.filterSocket = filterSocket
        self.filterDescriptor = filterDescriptor
        let watcher = Thread { [self] in
            watch()
            finished.store(true, ordering: .sequentiallyConsistent)
        }
        watcher.name = "vigil-tripwires"
        watcher.start()
    }

    /// What the client reached for, in order (each once): "connected to PATH (what)", "called mount(2)".
    var tripped: [String] {
        // A connection made just before the client ended is accepted within the poll's 50 ms.
        Thread.sleep(forTimeInterval: 0.1)
        return attempts.withLock { $0 }
    }

    /// Whether the filter's listener arrived: the client ran under the cell's system-call filter.
    var wasFiltered: Bool { filtered.load(ordering: .sequentiallyConsistent) }

    /// Stops listening; the sockets are removed.
    func stop() {
        guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
        // The watcher sees the flag within its poll's timeout, then closes the sockets.
        while !finished.load(ordering: .sequentiallyConsistent) { Thread.sleep(forTimeInterval: 0.01) }
        for wire in wires { unlink(wire.socket) }
        unlink(filterSocket)
    }

    deinit { stop() }

    private func record(_ attempt: String) {
        attempts.withLock { if !$0.contains(attempt) { $0.append(attempt) } }
    }

    private func watch() {
        var listeners: [Int32] = []
        var filterOpen = true
        while !stopped.load(ordering: .sequentiallyConsistent) {
            var polled = wires.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            polled.append(pollfd(fd: filterOpen ? filterDescriptor : -1, events: Int16(POLLIN), revents: 0))
            polled += listeners.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), 50) > 0 else { continue }
            for (index, entry) in polled.enumerated() where entry.revents != 0 {
                if index < wires.count {
                    let connection = accept(entry.fd, nil, nil)
                    guard connection >= 0 else { continue }
                    close(connection)
                    record("connected to \(wires[index].path) (\(ClientCell.describe(wires[index].path)))")
                } else if index == wires.count {
                    // The filter's listener, from CellExec, once: the socket closes after it.
                    let connection = accept(entry.fd, nil, nil)
                    guard connection >= 0 else { continue }
                    let listener = vigil_receive_descriptor(connection)
                    close(connection)
                    if listener >= 0 {
                        listeners.append(listener)
                        filtered.store(true, ordering: .sequentiallyConsistent)
                    }
                    close(filterDescriptor)
                    filterOpen = false
                } else {
                    var number: Int32 = 0
                    let answered = vigil_cell_filter_next(entry.fd, 0, &number)
                    if answered == 1 {
                        record("called \(String(cString: vigil_cell_syscall_name(number)))(2)")
                    } else if answered < 0 {
                        // Every filtered process is gone.
                        close(entry.fd)
                        listeners.removeAll { $0 == entry.fd }
                    }
                }
            }
        }
        for wire in wires { close(wire.descriptor) }
        if filterOpen { close(filterDescriptor) }
        listeners.forEach { close($0) }
    }

    /// A stream socket connected to the one at `path`, or -1.
    static func connect(to path: String) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0, var address = address(path) else { return -1 }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            let saved = errno
            close(descriptor)
            errno = saved
            return -1
        }
        return descriptor
    }

    /// The address of the UNIX socket at `path`; nil when it is too long (errno ENAMETOOLONG).
    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            errno = ENAMETOOLONG
            return nil
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        return address
    }

    /// A listening stream socket at `path` (readable and writable by all: the cell's user is
    /// another user namespace's), or -1.
    static func listen(at path: String) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return -1 }
        guard var address = address(path) else {
            close(descriptor)
            errno = ENAMETOOLONG
            return -1
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
