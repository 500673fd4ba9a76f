package import Foundation

/// A real TLS server on loopback: `openssl s_server` serving one testcerts case.
/// Not Vigil's code, so it checks Vigil's client independently. Stopped by `stop()` or deinit.
package final class TLSTestServer: @unchecked Sendable {  // immutable after init; Process is thread-safe to terminate
    package let host: String
    package let port: Int
    private let process: Process

    /// Serves `testcerts/<name>.pem` with the rest of `<name>-chain.pem` as its chain, on `bind`.
    package convenience init(case name: String, bind: String = "127.0.0.1") throws {
        let leaf = TestPaths.testcert("\(name).pem")
        let key = TestPaths.testcert("\(name).key")
        let chainFile = TestPaths.testcert("\(name)-chain.pem")
        let directory = try TestPaths.temporaryDirectory()
        let extra = directory.appendingPathComponent("extra.pem")
        let chain = try String(contentsOfFile: chainFile, encoding: .utf8)
        let marker = "-----END CERTIFICATE-----"
        let rest = chain.components(separatedBy: marker).dropFirst().joined(separator: marker)
        var arguments = [
            "s_server", "-accept", bind.contains(":") ? "[\(bind)]:0" : "\(bind):0", "-www",
            "-cipher", "DEFAULT:@SECLEVEL=0", "-cert", leaf, "-key", key,
        ]
        if rest.contains("BEGIN CERTIFICATE") {
            try rest.trimmingCharacters(in: .whitespacesAndNewlines).appending("\n").write(to: extra, atomically: true, encoding: .utf8)
            arguments += ["-cert_chain", extra.path]
        }
        try self.init(arguments: arguments, host: bind)
    }

    /// Serves the certificate in `certificateFile` (PEM, leaf first) with the key in `keyFile`.
    package convenience init(certificateFile: String, keyFile: String, bind: String = "127.0.0.1") throws {
        try self.init(arguments: ["s_server", "-accept", "\(bind):0", "-www", "-cert", certificateFile, "-key", keyFile], host: bind)
    }

    /// Serves `chainPEM` (leaf first) with `keyPEM`, stapling `staple` (a DER OCSP response) to
    /// every handshake (`-status_file`).
    package convenience init(chainPEM: String, keyPEM: String, staple: [UInt8], bind: String = "127.0.0.1") throws {
        let directory = try TestPaths.temporaryDirectory()
        let marker = "-----END CERTIFICATE-----"
        let parts = chainPEM.components(separatedBy: marker)
        let leaf = directory.appendingPathComponent("leaf.pem"), extra = directory.appendingPathComponent("extra.pem")
        let key = directory.appendingPathComponent("leaf.key"), status = directory.appendingPathComponent("staple.der")
        try (parts[0] + marker + "\n").write(to: leaf, atomically: true, encoding: .utf8)
        try (parts.dropFirst().joined(separator: marker).trimmingCharacters(in: .whitespacesAndNewlines) + "\n").write(
            to: extra, atomically: true, encoding: .utf8)
        try keyPEM.write(to: key, atomically: true, encoding: .utf8)
        try Data(staple).write(to: status)
        try self.init(
            arguments: [
                "s_server", "-accept", "\(bind):0", "-www", "-cert", leaf.path, "-key", key.path, "-cert_chain", extra.path, "-status_file", status.path,
            ], host: bind)
    }

    /// Serves the testcerts case `name`, demanding (`-Verify 1`) a client certificate issued by
    /// the CA in `clientCA` and naming it in its CertificateRequest, over `tls` (`-tls1_2`,
    /// `-tls1_3`).
    package convenience init(case name: String, demandingClientCertificatesFrom clientCA: String, tls: String = "-tls1_3") throws {
        try self.init(
            arguments: [
                "s_server", "-accept", "127.0.0.1:0", "-www", "-cert", TestPaths.testcert("\(name).pem"), "-key", TestPaths.testcert("\(name).key"),
                "-cert_chain", TestPaths.testcert("intermediate-ca.pem"), "-Verify", "1", "-CAfile", clientCA, tls,
            ], host: "127.0.0.1")
    }

    private init(arguments: [String], host: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        process.standardInput = Pipe()
        try process.run()
        // s_server prints "ACCEPT host:port" once it listens.
        let (port, buffer) = readPort(from: out.fileHandleForReading) { line in
            guard line.hasPrefix("ACCEPT"), let last = line.split(separator: ":").last else { return nil }
            return Int(last.trimmingCharacters(in: .whitespaces))
        }
        guard let port else {
            process.terminate()
            throw TestServerError(message: "openssl s_server did not start: \(buffer)")
        }
        self.process = process
        self.port = port
        self.host = host
    }

    /// `https://host:port` (IPv6 bracketed).
    package var url: String { host.contains(":") ? "https://[\(host)]:\(port)" : "https://\(host):\(port)" }

    package func stop() {
        // SIGKILL: children inherit the test runner's blocked signal mask, SIGTERM included.
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}

/// Reads a starting server's output until `port` finds its port in a line (or the output ends):
/// the port, and what was read.
func readPort(from handle: FileHandle, _ port: (Substring) -> Int?) -> (port: Int?, read: String) {
    var buffer = ""
    while true {
        let chunk = handle.availableData
        if chunk.isEmpty { return (nil, buffer) }
        buffer += String(decoding: chunk, as: UTF8.self)
        if let found = buffer.split(separator: "\n").lazy.compactMap(port).first { return (found, buffer) }
    }
}

package struct TestServerError: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}

/// A TCP socket bound to 127.0.0.1 on a free port.
func boundLoopbackSocket() -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// A port on 127.0.0.1 where nothing listens.
package func closedLoopbackPort() -> Int {
    let (fd, port) = boundLoopbackSocket()
    close(fd)
    return port
}

/// A socket on 127.0.0.1 that accepts TCP connections. Silent, it never speaks (connections wait
/// in the kernel backlog); with `reply`, it answers every connection with those bytes (plain
/// HTTP, say) and closes it.
package final class SilentListener: @unchecked Sendable {  // fd is immutable, closed once; the count is locked
    package let port: Int
    private let fd: Int32
    private let count = NSLock()
    private var acceptedCount = 0
    /// How many connections a replying listener has accepted.
    package var accepted: Int { count.withLock { acceptedCount } }
    package init(reply: Data? = nil) {
        TestPaths.ignoreBrokenPipes()
        (fd, port) = boundLoopbackSocket()
        _ = listen(fd, 8)
        if let reply {
            let fd = self.fd
            let thread = Thread { [self] in
                while true {
                    let client = accept(fd, nil, nil)
                    if client < 0 { return }
                    count.withLock { acceptedCount += 1 }
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    _ = read(client, &buffer, buffer.count)
                    _ = reply.withUnsafeBytes { send(client, $0.baseAddress, reply.count, Int32(MSG_NOSIGNAL)) }
                    close(client)
                }
            }
            thread.start()
        }
    }
    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}
