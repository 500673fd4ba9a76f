import Foundation

/// A minimal HTTP CONNECT proxy on 127.0.0.1, for proving that clients honour `https_proxy`.
/// It tunnels bytes and counts the tunnels it opened; it never looks inside TLS.
package final class ConnectProxy: @unchecked Sendable {  // state behind `lock`; fd immutable
    package let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var targets: [String] = []

    /// The `host:port` of every CONNECT request served, in order.
    package var tunnels: [String] {
        lock.lock()
        defer { lock.unlock() }
        return targets
    }

    package init() {
        TestPaths.ignoreBrokenPipes()
        (fd, port) = boundLoopbackSocket()
        _ = listen(fd, 8)
        let listener = fd
        let thread = Thread { [weak self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                self?.serve(client)
            }
        }
        thread.start()
    }

    private func serve(_ client: Int32) {
        var request = [UInt8]()
        var byte: UInt8 = 0
        while read(client, &byte, 1) == 1 {
            request.append(byte)
            if request.suffix(4) == Array("\r\n\r\n".utf8) || request.count > 8192 { break }
        }
        let line = String(decoding: request, as: UTF8.self).split(separator: "\r\n").first ?? ""
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0] == "CONNECT", let colon = parts[1].lastIndex(of: ":"),
            let port = UInt16(parts[1][parts[1].index(after: colon)...])
        else {
            close(client)
            return
        }
        var host = String(parts[1][..<colon])
        if host.hasPrefix("[") { host = String(host.dropFirst().dropLast()) }
        let upstream = Self.connectTCP(host: host, port: port)
        guard upstream >= 0 else {
            _ = "HTTP/1.1 502 Bad Gateway\r\n\r\n".withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            close(client)
            return
        }
        lock.lock()
        targets.append(String(parts[1]))
        lock.unlock()
        _ = "HTTP/1.1 200 Connection established\r\n\r\n".withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        Self.relay(from: client, to: upstream)
        Self.relay(from: upstream, to: client)
    }

    private static func relay(from source: Int32, to destination: Int32) {
        Thread {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = read(source, &buffer, buffer.count)
                if count <= 0 || send(destination, buffer, count, Int32(MSG_NOSIGNAL)) != count { break }
            }
            shutdown(destination, Int32(SHUT_WR))
        }.start()
    }

    private static func connectTCP(host: String, port: UInt16) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let info = result else { return -1 }
        defer { freeaddrinfo(result) }
        let socketFD = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        guard socketFD >= 0, connect(socketFD, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            close(socketFD)
            return -1
        }
        return socketFD
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}
