import Foundation

/// A TLS server on loopback that reads each HTTP request whole (head and body) and closes the
/// connection without a byte of answer: a token endpoint that took the request and dropped the
/// line. Python's ssl module over OpenSSL, not Vigil's code; serves a testcerts case. It counts
/// the requests it read (``requests``).
package final class DroppingTLSServer: @unchecked Sendable {  // immutable after init
    package let port: Int
    private let process: Process
    private let output: FileHandle
    private let counted = NSLock()
    private var seen = ""

    package init(case name: String = "valid-127.0.0.1") throws {
        let script = #"""
            import socket, ssl, sys
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(sys.argv[1], sys.argv[2])
            listener = socket.socket(); listener.bind(("127.0.0.1", 0)); listener.listen(8)
            print("PORT", listener.getsockname()[1], flush=True)
            while True:
                raw, _ = listener.accept()
                try:
                    tls = context.wrap_socket(raw, server_side=True)
                    data = b""
                    while b"\r\n\r\n" not in data:
                        chunk = tls.recv(4096)
                        if not chunk: break
                        data += chunk
                    head, _, body = data.partition(b"\r\n\r\n")
                    length = 0
                    for line in head.split(b"\r\n"):
                        if line.lower().startswith(b"content-length:"): length = int(line.split(b":", 1)[1])
                    while len(body) < length:
                        chunk = tls.recv(4096)
                        if not chunk: break
                        body += chunk
                    if head: print("REQUEST", len(body), flush=True)
                    tls.close()
                except Exception as error:
                    print("FAILED", error, flush=True)
                    raw.close()
            """#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, TestPaths.testcert("\(name)-chain.pem"), TestPaths.testcert("\(name).key")]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let handle = pipe.fileHandleForReading
        let (port, buffer) = readPort(from: handle) { $0.hasPrefix("PORT ") ? Int($0.dropFirst(5)) : nil }
        guard let port else {
            process.terminate()
            throw TestServerError(message: "the dropping TLS server did not start: \(buffer)")
        }
        self.port = port
        self.process = process
        self.output = handle
        seen = buffer
    }

    /// `https://127.0.0.1:PORT`.
    package var url: String { "https://127.0.0.1:\(port)" }

    /// The requests read whole so far (each then dropped unanswered).
    package var requests: Int {
        counted.withLock {
            // Non-blocking: read what the server printed since.
            let flags = fcntl(output.fileDescriptor, F_GETFL)
            _ = fcntl(output.fileDescriptor, F_SETFL, flags | O_NONBLOCK)
            var bytes = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(output.fileDescriptor, &bytes, bytes.count)
                if count <= 0 { break }
                seen += String(decoding: bytes.prefix(count), as: UTF8.self)
            }
            return seen.split(separator: "\n").filter { $0.hasPrefix("REQUEST ") }.count
        }
    }

    package func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
