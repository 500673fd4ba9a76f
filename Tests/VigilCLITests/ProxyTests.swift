import Foundation
import Testing
import VigilTestSupport

/// A TLS-inspecting or hostile https proxy must not receive the proxy password before its own
/// certificate is verified; an http proxy never receives one; SSLKEYLOGFILE is ignored unless
/// allowed. The proxy is a small TLS CONNECT proxy (scripts/test-tls-connect-proxy.py) that
/// reports what each client sent it.
@Suite("Proxies and TLS key logs", .serialized, .timeLimit(.minutes(3)))
struct ProxyTests {
    /// The proxy, serving testcerts' self-signed certificate (for 127.0.0.1), and what it saw.
    final class TLSProxy {
        let process = Process()
        let log: String
        let port: Int
        init() throws {
            log = try TestPaths.temporaryDirectory().appendingPathComponent("proxy.log").path
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "python3", TestPaths.root.appendingPathComponent("scripts/test-tls-connect-proxy.py").path, "0",
                TestPaths.testcert("self-signed.pem"), TestPaths.testcert("self-signed.key"), log,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            var port = 0
            let deadline = Date().addingTimeInterval(10)
            while port == 0 && Date() < deadline && process.isRunning {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("LISTENING ") }) {
                    port = Int(line.dropFirst("LISTENING ".count)) ?? 0
                } else {
                    usleep(20_000)
                }
            }
            self.port = port
            if port == 0 { stopProcess() }
        }
        /// SIGKILL: the test runner's children may inherit an ignored SIGTERM.
        private func stopProcess() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        /// What the proxy wrote (after stopping it).
        func stop() -> String {
            stopProcess()
            return (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        }
    }

    /// The PAC evaluator's cell gives it a session keyring of its own: a key in the user's (a
    /// Kerberos KEYRING: cache) is out of its reach. A stand-in evaluator answers a proxy when it
    /// finds the key; run outside the cell with the key it does, run by vigil it answers DIRECT.
    @Test func thePACEvaluatorCannotReadTheSessionKeyring() throws {
        let directory = try TestPaths.temporaryDirectory()
        let standIn = directory.appendingPathComponent("stand-in-pactester").path
        try """
        #!/bin/sh
        cat > /dev/null
        if /usr/bin/python3 -c 'import ctypes, os, sys; libc = ctypes.CDLL(None); libc.syscall.restype = ctypes.c_long; keyctl = 250 if os.uname().machine == "x86_64" else 219; sys.exit(0 if libc.syscall(keyctl, 10, ctypes.c_int(-3), b"user", b"vigil-invoker-key", 0) > 0 else 1)'
        then echo "PROXY leaked-key.invalid:1"; else echo DIRECT; fi
        """.write(toFile: standIn, atomically: true, encoding: .utf8)
        chmod(standIn, 0o755)
        let pac = directory.appendingPathComponent("any.pac").path
        try "function FindProxyForURL(url, host) { return 'DIRECT'; }".write(toFile: pac, atomically: true, encoding: .utf8)
        let withKey = TestPaths.root.appendingPathComponent("Tests/fake-clients/with-session-key.py").path
        let outside = try CommandRunner.run("/usr/bin/python3", [withKey, "vigil-invoker-key", standIn], input: Data())
        #expect(
            outside.standardOutput.contains("PROXY leaked-key"), "the probe finds the key outside the cell: \(outside.standardOutput)\(outside.standardError)")
        let environment = CommandRunner.hermetic(["VIGIL_PACTESTER": standIn, "VIGIL_CONNECTION_PROXY_AUTOCONFIG_URL": "file://" + pac])
        let inside = try CommandRunner.run(
            "/usr/bin/python3", [withKey, "vigil-invoker-key", TestPaths.vigilBinary, "proxy", "which", "https://a.example/", "--json"],
            environment: environment)
        #expect(
            inside.status == 0 && inside.standardOutput.contains("\"autoconfigAnswer\" : \"DIRECT\""),
            "the stand-in ran and found no key: \(inside.standardOutput)\(inside.standardError)")
    }

    @Test func anUntrustedHTTPSProxyGetsNoPasswordATrustedOneDoes() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let target = running.url(path: "")
            let untrusted = try TLSProxy()
            #expect(untrusted.port > 0)
            let proxy = "https://proxy-user:proxy-s3cret@127.0.0.1:\(untrusted.port)"
            let refused = try await CommandRunner.vigilDetached(["inspect", target, "--ca-file", TestPaths.caBundle], environment: ["https_proxy": proxy])
            let seen = untrusted.stop()
            #expect(
                refused.status == 2 && refused.errorCode == "HTTPError proxy" && refused.standardError.contains("nothing was sent"), "\(refused.standardError)"
            )
            #expect(!seen.contains("CONNECT") && !seen.contains("Proxy-Authorization"), "the proxy saw: \(seen)")
            #expect(!refused.standardError.contains("proxy-s3cret"))

            let trusted = try TLSProxy()
            let through = try await CommandRunner.vigilDetached(
                ["inspect", target, "--ca-file", TestPaths.caBundle],
                environment: [
                    "https_proxy": "https://proxy-user:proxy-s3cret@127.0.0.1:\(trusted.port)", "VIGIL_PROXY_CA_FILE": TestPaths.testcert("self-signed.pem"),
                ])
            let tunnelled = trusted.stop()
            #expect(through.status == 0, "\(through.standardError)")
            // Verified, but it never asked (no 407): it gets no password, never pre-emptively.
            #expect(tunnelled.contains("CONNECT") && !tunnelled.contains("Proxy-Authorization"), "a proxy that never asked got a password: \(tunnelled)")

            let flagged = try TLSProxy()
            let withFlag = try await CommandRunner.vigilDetached(
                ["inspect", target, "--ca-file", TestPaths.caBundle, "--proxy-ca-file", TestPaths.testcert("self-signed.pem")],
                environment: ["https_proxy": "https://127.0.0.1:\(flagged.port)"])
            let flaggedSeen = flagged.stop()
            #expect(withFlag.status == 0 && flaggedSeen.contains("CONNECT"), "--proxy-ca-file trusts the proxy: \(withFlag.standardError)")
        }
    }

    /// (Basic to a plain-http proxy only with consent: SquidProxyTests, against a proxy that asks.)
    @Test func anHTTPProxyPasswordIsNeverShown() async throws {
        let result = try await CommandRunner.vigilDetached(
            ["inspect", "https://127.0.0.1:9"], environment: ["https_proxy": "http://u:proxy-s3cret@127.0.0.1:9"])
        #expect(
            result.status == 2 && result.errorCode == "HTTPError connection-refused" && !result.standardError.contains("proxy-s3cret"),
            "\(result.standardError)")
    }

    @Test func aProxySettingIsNeverEchoedAndAPlainHTTPRequestMeetsTheSameRules() async throws {
        // A password with characters no URL parser takes: the setting is refused, not shown.
        let odd = try await CommandRunner.vigilDetached(["inspect", "https://127.0.0.1:9"], environment: ["https_proxy": "http://u:pa#ss@127.0.0.1:3128"])
        #expect(odd.status == 2 && !odd.standardError.contains("pa#ss") && !odd.standardError.contains("ss@"), "\(odd.standardError)")
        // An http URL's status probe goes through http_proxy: its password is not shown either.
        let plain = try await CommandRunner.vigilDetached(
            ["account", "add", "http://127.0.0.1:9/", "--user", "alice", "--password-stdin"],
            environment: ["http_proxy": "http://u:proxy-s3cret@127.0.0.1:9"], input: Data("pw\n".utf8))
        #expect(plain.status != 0 && !plain.standardError.contains("proxy-s3cret") && !plain.standardOutput.contains("proxy-s3cret"), "\(plain.standardError)")
    }

    @Test func sslKeyLogFileIsIgnoredUnlessAllowed() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let directory = try TestPaths.temporaryDirectory().path
            let ignored = directory + "/ignored.keys", allowed = directory + "/allowed.keys"
            #expect(
                try await CommandRunner.vigilDetached(
                    ["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle], environment: ["SSLKEYLOGFILE": ignored]
                ).status == 0)
            #expect(!FileManager.default.fileExists(atPath: ignored), "no TLS secrets written")
            #expect(
                try await CommandRunner.vigilDetached(
                    ["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle],
                    environment: ["SSLKEYLOGFILE": allowed, "VIGIL_ALLOW_SSLKEYLOGFILE": "1"]
                ).status == 0)
            let attributes = try FileManager.default.attributesOfItem(atPath: allowed)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            #expect(((attributes[.size] as? NSNumber)?.intValue ?? 0) > 0, "allowed: the key log is written")
            // Never through a symlink (someone else's file, or a file in a shared directory).
            let link = directory + "/link.keys", target = directory + "/target.keys"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
            #expect(
                try await CommandRunner.vigilDetached(
                    ["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle],
                    environment: ["SSLKEYLOGFILE": link, "VIGIL_ALLOW_SSLKEYLOGFILE": "1"]
                ).status == 0)
            #expect(!FileManager.default.fileExists(atPath: target), "a symlinked key log is not followed")
        }
    }
}
