import Foundation

/// A server on loopback that answers every ClientHello the way a broken or hostile TLS stack
/// would, for `server check` to be tried against (Python's socket module, not Vigil's code):
/// - `garbage-after-hello`: a ServerHello for the first suite offered, then bytes that are no TLS;
/// - `unoffered-suite`: a ServerHello for a suite never offered (0xCAFE);
/// - `stall`: reads the ClientHello and never answers (the connection stays open);
/// - `trickle`: a record header announcing 16 KB, then one byte a second, forever;
/// - `huge-chain`: a real TLS server whose chain is the leaf and its CA 400 times (over 300 KB);
/// - `legacy-*`: a real TLS server, except to a ClientHello offering 3DES (one only Vigil's own
///   hello sends): `legacy-garbage` answers it with HTTP, `legacy-fragmented` with a ServerHello
///   for 3DES in its version cut into one-byte records, `legacy-compression` with one that chose
///   a compression method never offered.
package final class HostileTLSServer: @unchecked Sendable {  // immutable after init
    package let port: Int
    private let process: Process

    package init(_ mode: String) throws {
        let script = #"""
            import os, socket, ssl, sys, threading, time
            mode, chain, key = sys.argv[1], sys.argv[2], sys.argv[3]
            listener = socket.socket(); listener.bind(("127.0.0.1", 0)); listener.listen(64)
            context = None
            if mode.startswith("legacy-"):
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); context.load_cert_chain(chain, key)
            if mode == "huge-chain":
                pems = open(chain).read().split("-----END CERTIFICATE-----")
                leaf, rest = pems[0] + "-----END CERTIFICATE-----\n", "".join(p + "-----END CERTIFICATE-----\n" for p in pems[1:] if p.strip())
                path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "huge-chain-%d.pem" % os.getpid())
                open(path, "w").write(leaf + rest * 400)
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); context.load_cert_chain(path, key)
            print("PORT", listener.getsockname()[1], flush=True)
            def hello(suite, version=b"\x03\x03", compression=b"\x00"):
                body = version + os.urandom(32) + b"\x00" + suite + compression
                message = b"\x02" + len(body).to_bytes(3, "big") + body
                return b"\x16\x03\x03" + len(message).to_bytes(2, "big") + message
            def offers_3des(raw):
                data = b""
                for _ in range(50):
                    data = raw.recv(16384, socket.MSG_PEEK)
                    if len(data) >= 46 and len(data) >= 5 + int.from_bytes(data[3:5], "big"): break
                    time.sleep(0.01)
                if len(data) < 46: return None
                session = data[43]
                count = int.from_bytes(data[44 + session:46 + session], "big")
                suites = data[46 + session:46 + session + count]
                return data if any(suites[i:i + 2] == b"\x00\x0a" for i in range(0, len(suites), 2)) else None
            def serve(raw):
                try:
                    if mode.startswith("legacy-"):
                        data = offers_3des(raw)
                        if data is None:
                            tls = context.wrap_socket(raw, server_side=True)
                            tls.recv(1); tls.close(); return
                        raw.recv(16384)
                        version = data[9:11]
                        if mode == "legacy-garbage":
                            raw.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
                        elif mode == "legacy-compression":
                            raw.sendall(hello(b"\x00\x0a", version, compression=b"\x01"))
                        else:
                            whole = hello(b"\x00\x0a", version)
                            raw.sendall(b"".join(b"\x16\x03\x03\x00\x01" + whole[i:i + 1] for i in range(5, len(whole))))
                        raw.close(); return
                    if context is not None:
                        context.wrap_socket(raw, server_side=True).close(); return
                    data = raw.recv(16384)
                    if len(data) < 46: raw.close(); return
                    session = data[43]
                    first = data[46 + session:48 + session]
                    if mode == "garbage-after-hello":
                        raw.sendall(hello(first) + b"this is no TLS record at all\r\n" * 8)
                    elif mode == "unoffered-suite":
                        raw.sendall(hello(b"\xca\xfe"))
                    elif mode == "stall":
                        raw.recv(1); return
                    elif mode == "trickle":
                        raw.sendall(b"\x16\x03\x03\x40\x00")
                        while True: raw.sendall(b"\x00"); time.sleep(1)
                    raw.close()
                except Exception:
                    raw.close()
            while True:
                connection, _ = listener.accept()
                threading.Thread(target=serve, args=(connection,), daemon=True).start()
            """#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, mode, TestPaths.testcert("valid-127.0.0.1-chain.pem"), TestPaths.testcert("valid-127.0.0.1.key")]
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = try TestPaths.temporaryDirectory().path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let (port, buffer) = readPort(from: pipe.fileHandleForReading) { $0.hasPrefix("PORT ") ? Int($0.dropFirst(5)) : nil }
        guard let port else {
            process.terminate()
            throw TestServerError(message: "the hostile TLS server (\(mode)) did not start: \(buffer)")
        }
        self.port = port
        self.process = process
    }

    /// `https://127.0.0.1:PORT`.
    package var url: String { "https://127.0.0.1:\(port)" }

    package func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
