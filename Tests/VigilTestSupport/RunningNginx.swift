package import Foundation

/// Debian's nginx on loopback as a mutual-TLS reverse proxy (`ssl_verify_client on`, or
/// `optional`) in front of an https upstream: the real counterpart of the simulator's
/// `clientAuth`. Not Vigil's code. Stopped by `stop()` or deinit.
package final class RunningNginx: @unchecked Sendable {  // immutable after init
    package let port: Int
    private let process: Process
    package let directory: URL

    package static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") }

    /// Listens on 127.0.0.1 with the testcerts case `certificate`, asks for client certificates
    /// from `clientCA` (`verify`: `on` or `optional`), and passes requests to `upstream`
    /// (verified against the test CA).
    package convenience init(
        upstream: String, certificate: String = "valid-127.0.0.1", clientCA: String = TestPaths.testcert("client-ca.pem"), verify: String = "on"
    ) throws {
        try self.init { port in
            """
            listen 127.0.0.1:\(port) ssl;
            ssl_certificate \(TestPaths.testcert("\(certificate)-chain.pem"));
            ssl_certificate_key \(TestPaths.testcert("\(certificate).key"));
            ssl_client_certificate \(clientCA);
            ssl_verify_client \(verify);
            location / {
                proxy_pass \(upstream);
                proxy_ssl_trusted_certificate \(TestPaths.caBundle);
                proxy_ssl_verify on;
                proxy_set_header X-SSL-Client-Subject $ssl_client_s_dn;
            }
            """
        }
    }

    /// A plain TLS server (it answers 200 to everything) with these `ssl_*` directives: a real
    /// server's configuration for `vigil server check` to scan (`protocols`, `ciphers` in
    /// OpenSSL's syntax, a `dhparam` file, server order).
    package convenience init(protocols: String, ciphers: String, dhparam: String? = nil, preferServerCiphers: Bool = true, extra: String = "") throws {
        try self.init { port in
            """
            listen 127.0.0.1:\(port) ssl;
            ssl_certificate \(TestPaths.testcert("valid-127.0.0.1-chain.pem"));
            ssl_certificate_key \(TestPaths.testcert("valid-127.0.0.1.key"));
            ssl_protocols \(protocols);
            ssl_ciphers \(ciphers);
            ssl_prefer_server_ciphers \(preferServerCiphers ? "on" : "off");
            \(dhparam.map { "ssl_dhparam \($0);" } ?? "")
            \(extra)
            location / { return 200 "ok"; }
            """
        }
    }

    /// nginx with one server block, `block(port)`, on a free loopback port.
    private init(block: (Int) -> String) throws {
        directory = try TestPaths.temporaryDirectory()
        for name in ["logs", "temp"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        port = closedLoopbackPort()
        let path = directory.path
        let configuration = """
            \(getuid() == 0 ? "user root;" : "")
            worker_processes 1;
            error_log \(path)/logs/error.log info;
            pid \(path)/nginx.pid;
            events { worker_connections 64; }
            http {
                access_log \(path)/logs/access.log;
                client_body_temp_path \(path)/temp/body;
                proxy_temp_path \(path)/temp/proxy;
                fastcgi_temp_path \(path)/temp/fastcgi;
                uwsgi_temp_path \(path)/temp/uwsgi;
                scgi_temp_path \(path)/temp/scgi;
                server {
            \(block(port))
                }
            }
            """
        let file = directory.appendingPathComponent("nginx.conf")
        try configuration.write(to: file, atomically: true, encoding: .utf8)
        process = try ServerProcess.start("/usr/sbin/nginx", ["-p", path, "-c", file.path, "-e", "\(path)/logs/error.log", "-g", "daemon off;"])
        if ServerProcess.waitUntilListening(process, port: port, tries: 100) { return }
        stop()
        let log = (try? String(contentsOf: directory.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
        throw TestServerError(message: "nginx did not start: \(log)")
    }

    package var url: String { "https://127.0.0.1:\(port)" }

    package func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGQUIT)
            usleep(100_000)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
