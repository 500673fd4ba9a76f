package import Foundation

/// Debian's Squid (squid-openssl) on loopback as a forward proxy: the real counterpart of a
/// corporate proxy. Not Vigil's code. It asks who you are (`basic_ncsa_auth` or
/// `digest_file_auth`), or opens TLS (`ssl_bump` with a root of its own), or both; it resolves
/// no name (its DNS server is 127.0.0.1) and reaches only what the test names by address.
/// Stopped by `stop()` or deinit.
package final class RunningSquid: @unchecked Sendable {  // immutable after init
    /// How the proxy asks who you are.
    package enum Login: Sendable {
        case none
        case basic(user: String, password: String)
        case digest(user: String, password: String)
        /// Kerberos (`negotiate_kerberos_auth`) with the service key of a test realm.
        case negotiate(RunningKDC)
    }

    package let port: Int
    package let directory: URL
    /// With `bump`: the proxy's own root (PEM), to hand to the client as a locally added root.
    package let interceptionRoot: String?
    private let process: Process

    package static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/sbin/squid") && FileManager.default.isExecutableFile(atPath: "/usr/lib/squid/basic_ncsa_auth")
    }

    package var url: String { "http://127.0.0.1:\(port)" }

    package init(login: Login = .none, bump: Bool = false, realm: String = "Vigil Test Proxy") throws {
        directory = try TestPaths.temporaryDirectory()
        port = closedLoopbackPort()
        let path = directory.path
        var lines = [
            "pid_filename \(path)/squid.pid", "cache_log \(path)/cache.log", "access_log stdio:\(path)/access.log", "cache deny all",
            "coredump_dir \(path)", "shutdown_lifetime 0 seconds", "dns_nameservers 127.0.0.1", "pinger_enable off",
            "acl CONNECT method CONNECT", "acl loopback src 127.0.0.0/8",
        ]
        var root: String?
        if bump {
            let key = "\(path)/root.key"
            let certificate = "\(path)/root.pem"
            try Self.run(
                "/usr/bin/openssl",
                [
                    "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", certificate, "-days", "30",
                    "-subj", "/CN=Vigil Test Inspection CA/O=Example Corp IT", "-addext", "basicConstraints=critical,CA:TRUE",
                    "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                ])
            try Self.run("/usr/lib/squid/security_file_certgen", ["-c", "-s", "\(path)/ssl_db", "-M", "4MB"])
            lines += [
                "http_port 127.0.0.1:\(port) ssl-bump tls-cert=\(certificate) tls-key=\(key) generate-host-certificates=on dynamic_cert_mem_cache_size=4MB",
                "sslcrtd_program /usr/lib/squid/security_file_certgen -s \(path)/ssl_db -M 4MB", "sslcrtd_children 2 startup=1 idle=1",
                "acl step1 at_step SslBump1", "ssl_bump peek step1", "ssl_bump bump all", "tls_outgoing_options cafile=\(TestPaths.caBundle)",
            ]
            root = certificate
        } else {
            lines.append("http_port 127.0.0.1:\(port)")
        }
        switch login {
        case .none:
            lines += ["http_access allow loopback", "http_access deny all"]
        case .basic(let user, let password):
            let file = "\(path)/passwd"
            try Self.run("/usr/bin/htpasswd", ["-bc", file, user, password])
            lines += [
                "auth_param basic program /usr/lib/squid/basic_ncsa_auth \(file)", "auth_param basic realm \(realm)", "acl authed proxy_auth REQUIRED",
                "http_access allow loopback authed", "http_access deny all",
            ]
        case .negotiate:
            break  // below, with the helper's environment
        case .digest(let user, let password):
            let file = "\(path)/digest"
            try "\(user):\(password)\n".write(toFile: file, atomically: true, encoding: .utf8)
            lines += [
                "auth_param digest program /usr/lib/squid/digest_file_auth \(file)", "auth_param digest realm \(realm)",
                "acl authed proxy_auth REQUIRED", "http_access allow loopback authed", "http_access deny all",
            ]
        }
        var environment: [String: String]?
        if case .negotiate(let kdc) = login {
            let keytab = "\(path)/http.keytab"
            try FileManager.default.copyItem(atPath: kdc.keytab, toPath: keytab)
            lines += [
                "auth_param negotiate program /usr/lib/squid/negotiate_kerberos_auth -k \(keytab) -s \(RunningKDC.service)@\(RunningKDC.realm)",
                "auth_param negotiate children 2", "acl authed proxy_auth REQUIRED", "http_access allow loopback authed", "http_access deny all",
            ]
            // The helper reads the realm's configuration, never the machine's.
            environment = ["KRB5_CONFIG": kdc.krb5Config, "KRB5_KTNAME": keytab, "PATH": "/usr/sbin:/usr/bin:/bin"]
        }
        interceptionRoot = root
        let file = directory.appendingPathComponent("squid.conf")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        // Squid started as root runs as the `proxy` user: the directory must be its.
        if getuid() == 0 {
            try Self.run("/bin/chown", ["-R", "proxy:proxy", path])
            try Self.run("/bin/chmod", ["0755", directory.deletingLastPathComponent().path])
        }
        process = try ServerProcess.start("/usr/sbin/squid", ["-N", "-f", file.path], environment: environment)
        if ServerProcess.waitUntilListening(process, port: port, tries: 200) { return }
        stop()
        let log = (try? String(contentsOfFile: "\(path)/cache.log", encoding: .utf8)) ?? ""
        throw TestServerError(message: "squid did not start: \(log.suffix(2000))")
    }

    /// What the proxy logged of each request (its access log): method, target, status, user.
    package var accessLog: String { (try? String(contentsOfFile: directory.path + "/access.log", encoding: .utf8)) ?? "" }

    static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestServerError(message: "\(executable) \(arguments.joined(separator: " ")) failed") }
    }

    package func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit { stop() }
}
