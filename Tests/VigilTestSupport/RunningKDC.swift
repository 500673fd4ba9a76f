package import Foundation

/// Debian's MIT Kerberos KDC (krb5-kdc) on loopback with a realm of the test's own, `VIGIL.TEST`:
/// its database, configuration and keytab in a temporary directory, nothing of the machine's
/// (/etc/krb5.conf is never read: `krb5Config` is what clients and Squid's helper are given).
/// One user, `alice`, and the service `HTTP/127.0.0.1` of a proxy on loopback. Stopped by
/// `stop()` or deinit.
package final class RunningKDC: @unchecked Sendable {  // immutable after init
    package static let realm = "VIGIL.TEST"
    package static let user = "alice"
    package static let password = "alice-kerberos-p4ss"
    /// The proxy's service principal (the name a client asks a ticket for: HTTP/ and the proxy's host).
    package static let service = "HTTP/127.0.0.1"

    package let port: Int
    package let directory: URL
    /// The krb5.conf of this realm (KRB5_CONFIG).
    package let krb5Config: String
    /// The keytab of the proxy's service principal, for Squid's negotiate_kerberos_auth.
    package let keytab: String
    private let process: Process

    package static var isInstalled: Bool {
        ["/usr/sbin/krb5kdc", "/usr/sbin/kdb5_util", "/usr/sbin/kadmin.local", "/usr/bin/kinit", "/usr/bin/klist"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        } && FileManager.default.isExecutableFile(atPath: "/usr/lib/squid/negotiate_kerberos_auth")
    }

    package init() throws {
        directory = try TestPaths.temporaryDirectory()
        port = closedLoopbackPort()
        let path = directory.path
        krb5Config = path + "/krb5.conf"
        keytab = path + "/http.keytab"
        try """
        [libdefaults]
          default_realm = \(Self.realm)
          dns_lookup_kdc = false
          dns_lookup_realm = false
          dns_canonicalize_hostname = false
          rdns = false
          udp_preference_limit = 1
        [realms]
          \(Self.realm) = {
            kdc = 127.0.0.1:\(port)
          }
        """.write(toFile: krb5Config, atomically: true, encoding: .utf8)
        let kdcConfig = path + "/kdc.conf"
        try """
        [kdcdefaults]
          kdc_ports = \(port)
          kdc_tcp_ports = \(port)
        [realms]
          \(Self.realm) = {
            database_name = \(path)/principal
            key_stash_file = \(path)/stash
            acl_file = \(path)/kadm5.acl
          }
        [logging]
          kdc = FILE:\(path)/kdc.log
        """.write(toFile: kdcConfig, atomically: true, encoding: .utf8)
        // Squid's helper runs as the `proxy` user: the realm's configuration must be readable to it.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: krb5Config)
        let environment = ["KRB5_CONFIG": krb5Config, "KRB5_KDC_PROFILE": kdcConfig, "PATH": "/usr/sbin:/usr/bin:/bin"]
        try Self.run("/usr/sbin/kdb5_util", ["create", "-s", "-r", Self.realm, "-P", "vigil-test-master"], environment: environment)
        for query in [
            "addprinc -pw \(Self.password) \(Self.user)", "addprinc -randkey \(Self.service)", "ktadd -k \(keytab) \(Self.service)",
        ] {
            try Self.run("/usr/sbin/kadmin.local", ["-r", Self.realm, "-q", query], environment: environment)
        }
        process = try ServerProcess.start("/usr/sbin/krb5kdc", ["-n", "-r", Self.realm, "-P", path + "/kdc.pid"], environment: environment)
        if ServerProcess.waitUntilListening(process, port: port, tries: 200) { return }
        stop()
        throw TestServerError(message: "krb5kdc did not start: \((try? String(contentsOfFile: path + "/kdc.log", encoding: .utf8)) ?? "")")
    }

    /// The environment of a client of this realm with its own credentials cache (`cache`).
    package func clientEnvironment(cache: String) -> [String: String?] { ["KRB5_CONFIG": krb5Config, "KRB5CCNAME": "FILE:" + cache] }

    /// `kinit alice` into `cache`, the password on standard input; `lifetime` as kinit's -l.
    package func kinit(cache: String, lifetime: String? = nil) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["KRB5_CONFIG"] = krb5Config
        environment["KRB5CCNAME"] = "FILE:" + cache
        let result = try CommandRunner.run(
            "/usr/bin/kinit", (lifetime.map { ["-l", $0] } ?? []) + ["\(Self.user)@\(Self.realm)"], environment: environment.mapValues { $0 },
            input: Data((Self.password + "\n").utf8))
        guard result.status == 0 else { throw TestServerError(message: "kinit failed: \(result.standardError)") }
    }

    static func run(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        let result = try CommandRunner.run(executable, arguments, environment: environment.mapValues { $0 })
        guard result.status == 0 else {
            throw TestServerError(message: "\(executable) \(arguments.joined(separator: " ")) failed: \(result.standardError)")
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
