package import Foundation

/// A program started for a test (nginx, squid, vigil itself): its output discarded; a server is ready once it accepts
/// connections on its port.
package enum ServerProcess {
    /// Starts `executable` with `arguments` (and `environment`, nil: ours), its standard streams on /dev/null.
    package static func start(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Waits until 127.0.0.1:`port` accepts a connection (50 ms between tries); false when it
    /// did not within `tries`, or the process ended.
    package static func waitUntilListening(_ process: Process, port: Int, tries: Int) -> Bool {
        for _ in 0..<tries {
            if accepts(port) { return true }
            if !process.isRunning { return false }
            usleep(50_000)
        }
        return false
    }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
