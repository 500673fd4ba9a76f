import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// Every TLS scenario over real TLS, judged by curl and openssl (not Vigil's client).
@Suite("TLS scenarios, live", .serialized, .timeLimit(.minutes(3)))
struct TLSScenarioTests {
    /// Scenario and whether curl (trusting only the test CA) accepts it.
    static let cases: [(String, Bool)] = [
        ("valid", true), ("renewed-same-key", true), ("rekeyed", true), ("mitm-trusted-ca", false),
        ("self-signed", false), ("untrusted-root", false), ("expired", false), ("not-yet-valid", false), ("wrong-host", false),
        ("incomplete-chain", false), ("mitm-forged", false), ("weak-rsa-1024", false), ("sha1-intermediate", false), ("legacy-tls", false),
    ]

    func fingerprint(_ script: String) async throws -> String {
        try await CommandRunner.runDetached("/bin/sh", ["-c", script]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: cases)
    func curlVerdictAndThePresentedCertificate(name: String, accepted: Bool) async throws {
        let running = try await RunningSimulator(name)
        let result = try await running.curl([], url: running.url())
        await running.stop()
        #expect((result.exit == 0) == accepted, "\(name): curl exit \(result.exit)")
        if accepted { #expect(result.status == 200) }
    }

    /// The interception proxy's CA, once trusted (an administrator installed it), is accepted:
    /// the proxy forwards to the genuine host.
    @Test func aTrustedInterceptionCAIsAcceptedByCurl() async throws {
        try await withRunningSimulator("mitm-trusted-ca") { (running) async throws in
            let result = try await running.curl(["--cacert", RunningSimulator.certificates + "/interception-ca.pem"], url: running.url())
            #expect(result.exit == 0 && result.status == 200, "curl exit \(result.exit)")
        }
    }

    @Test(arguments: ["valid", "self-signed", "expired", "mitm-forged", "rekeyed", "renewed-same-key", "weak-rsa-1024"])
    func theScenariosCertificateIsPresented(name: String) async throws {
        try await withRunningSimulator(name) { (running) async throws in
            let listener = try #require(running.listeners.first { $0.host == 1 && $0.scheme == "https" })
            let served = try await fingerprint(
                "openssl s_client -connect 127.0.0.1:\(listener.port) -cipher 'DEFAULT:@SECLEVEL=0' </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256"
            )
            let expected = try await fingerprint(
                "openssl x509 -in '\(RunningSimulator.certificates)/\(listener.certificate ?? "").pem' -noout -fingerprint -sha256")
            #expect(!served.isEmpty)
            #expect(served == expected, "\(name) served \(served)")
        }
    }

    @Test func legacyTLSOffersOnlyOldVersions() async throws {
        try await withRunningSimulator("legacy-tls") { (running) async throws in
            let port = try #require(running.listeners.first { $0.scheme == "https" }?.port)
            let modern = try await CommandRunner.runDetached("/bin/sh", ["-c", "openssl s_client -connect 127.0.0.1:\(port) -tls1_2 </dev/null 2>&1"])
            #expect(
                modern.standardOutput.contains("unsupported protocol") || modern.standardOutput.contains("alert"),
                "TLS 1.2 must be refused: \(modern.standardOutput.suffix(300))")
            let old = try await CommandRunner.runDetached(
                "/bin/sh", ["-c", "openssl s_client -connect 127.0.0.1:\(port) -tls1_1 -cipher 'DEFAULT:@SECLEVEL=0' </dev/null 2>&1"])
            #expect(old.standardOutput.contains("TLSv1.1"), "\(old.standardOutput.suffix(400))")
        }
    }

    @Test func threeHostsWithMatchingCertificates() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            for host in 1...3 {
                let result = try await running.curl([], url: running.url(host: host))
                #expect(result.exit == 0 && result.status == 200, "host \(host)")
            }
        }
    }
}

/// HTTP scenarios over TLS, driven by curl.
@Suite("HTTP scenarios, live", .serialized, .timeLimit(.minutes(3)))
struct HTTPScenarioTests {
    let alice = ["-u", "alice:alice-test-password"]
    let dav = "/remote.php/dav/files/alice/"

    @Test(arguments: [301, 302, 307, 308])
    func crossHostRedirectsAndCredentialsStayBehind(status: Int) async throws {
        try await withRunningSimulator("redirect-cross-host-\(status)") { (running) async throws in
            let first = try await running.curl(alice, url: running.url())
            #expect(first.status == status)
            #expect(first.headers.contains("Location: \(running.url(host: 2))"))
            // curl follows without --location-trusted: the second host must not see the credentials.
            let followed = try await running.curl(["-L"] + alice, url: running.url())
            #expect(followed.status == 200)
            let second = running.simulator.journal.entries.filter { $0.host == "127.0.0.2" }
            #expect(!second.isEmpty && second.allSatisfy { !$0.authorization })
        }
    }

    @Test func sameHostUpgradeAndDowngrade() async throws {
        let same = try await RunningSimulator("redirect-same-host")
        let moved = try await same.curl([], url: same.url())
        #expect(moved.status == 301 && moved.headers.contains("Location: /moved/status.php"))
        #expect(try await same.curl(["-L"], url: same.url()).status == 200)
        await same.stop()

        let upgrade = try await RunningSimulator("redirect-upgrade")
        let plain = try await upgrade.curl([], url: upgrade.url(scheme: "http"))
        #expect(plain.status == 301 && plain.headers.contains("Location: \(upgrade.url())"))
        #expect(try await upgrade.curl(["-L"], url: upgrade.url(scheme: "http")).status == 200)
        await upgrade.stop()

        let downgrade = try await RunningSimulator("redirect-downgrade")
        let stripped = try await downgrade.curl([], url: downgrade.url())
        #expect(stripped.status == 302 && stripped.headers.contains("Location: \(downgrade.url(scheme: "http"))"))
        await downgrade.stop()
    }

    @Test func chainOfThirtyAndLoop() async throws {
        let chain = try await RunningSimulator("redirect-chain-30")
        #expect(try await chain.curl(["-L", "--max-redirs", "10"], url: chain.url()).exit == 47)
        let long = try await chain.curl(["-L", "--max-redirs", "40"], url: chain.url())
        #expect(long.status == 200)
        #expect(chain.simulator.journal.entries.filter { $0.status == 302 }.count == 11 + 30)
        await chain.stop()

        let loop = try await RunningSimulator("redirect-loop")
        #expect(try await loop.curl(["-L", "--max-redirs", "20"], url: loop.url()).exit == 47)
        await loop.stop()
    }

    @Test func apmCookieRedirects() async throws {
        try await withRunningSimulator("simple-apm") { (running) async throws in
            let jar = try TestPaths.temporaryDirectory().appendingPathComponent("jar").path
            let first = try await running.curl([], url: running.url())
            #expect(first.status == 302 && first.headers.contains("Location: /apm/login?return="))
            let followed = try await running.curl(["-L", "-c", jar, "-b", jar], url: running.url())
            #expect(followed.status == 200)
            #expect(followed.headers.contains("Set-Cookie: APMSESSION=apm-1"))
            #expect(try await running.curl(["-b", jar], url: running.url()).status == 200)
            #expect(running.simulator.journal.entries.contains { $0.path == "/apm/login" })
        }
    }

    /// A mutual-TLS host journals the certificate a client presents the moment it arrives, even one
    /// it then refuses: the disclosure happened all the same.
    @Test func aPresentedClientCertificateIsJournalledEvenWhenRefused() async throws {
        try await withRunningSimulator("mtls-required") { (running) async throws in
            let expired = try await running.curl(
                ["--cert", TestPaths.testcert("client-expired.pem"), "--key", TestPaths.testcert("client-expired.key")], url: running.url())
            #expect(expired.status == 0, "refused: \(expired)")
            // curl is gone once the alert arrives; the simulator completes the connection's entry
            // on its event loop a moment later: read the journal once no connection is open.
            let deadline = ContinuousClock.now + .seconds(5)
            while running.simulator.journal.openConnections > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(running.simulator.journal.connections.contains { $0.clientCertificate == "CN=alice" && $0.handshake == "failed" })
            let none = try await running.curl([], url: running.url())
            #expect(none.status == 0)
            let valid = try await running.curl(
                ["--cert", TestPaths.testcert("client-alice.pem"), "--key", TestPaths.testcert("client-alice.key")], url: running.url())
            #expect(valid.status == 200)
        }
    }

    @Test func anAPMSessionIsDroppedOnce() async throws {
        try await withRunningSimulator("apm-session-dropped") { (running) async throws in
            let jar = try TestPaths.temporaryDirectory().appendingPathComponent("jar").path
            _ = try await running.curl(["-L", "-c", jar, "-b", jar], url: running.url())
            var statuses: [Int] = []
            for _ in 0..<5 { statuses.append(try await running.curl(["-b", jar, "-c", jar], url: running.url()).status) }
            #expect(statuses.contains(302), "the session is dropped once: \(statuses)")
            #expect(try await running.curl(["-L", "-b", jar, "-c", jar], url: running.url()).status == 200)
            #expect(try await running.curl(["-b", jar], url: running.url()).status == 200)
        }
    }

    /// What a man in the middle sees: a careless client (curl -k) hands it the credentials, and
    /// the proxy forwards them over its own TLS connection to the genuine host.
    @Test func mitmJournalShowsWhatTheAttackerSaw() async throws {
        try await withRunningSimulator("mitm-forged") { (running) async throws in
            #expect(try await running.curl(["-X", "PROPFIND"] + alice, url: running.url(path: dav)).exit == 60)
            #expect(running.simulator.journal.entries.isEmpty, "a verifying client sends nothing")
            let careless = try await running.curl(["-k", "-X", "PROPFIND"] + alice, url: running.url(path: dav))
            #expect(careless.status == 207)
            #expect(careless.body.contains("<d:multistatus"), "the genuine host's answer is relayed: \(careless.body.prefix(200))")
            let entries = running.simulator.journal.entries
            #expect(entries.count == 2)
            let attacker = try #require(entries.first { $0.mitm == true })
            #expect(
                attacker.authorization && attacker.status == 207 && attacker.method == "PROPFIND" && attacker.path == dav, "the attacker saw the credentials")
            let genuine = try #require(entries.first { $0.mitm == nil })
            #expect(genuine.authorization && genuine.status == 207, "the genuine host got them from the proxy")
        }
    }

    /// The proxy is a second TLS hop: the client sees the attacker's certificate, the genuine host
    /// behind it serves its own, and bodies and statuses cross both connections.
    @Test func mitmIsAProxyInFrontOfTheGenuineHost() async throws {
        try await withRunningSimulator("mitm-forged") { (running) async throws in
            let front = try #require(running.listeners.first { $0.host == 1 && $0.scheme == "https" })
            let genuineURL = try #require(front.forwardsTo)
            #expect(front.certificate == "mitm-forged")
            #expect(running.listeners.allSatisfy { $0.url != genuineURL }, "the genuine host is not offered to clients")
            let genuinePort = try #require(URLComponents(string: genuineURL)?.port)
            #expect(genuinePort != front.port)
            func served(_ port: Int) async throws -> String {
                try await CommandRunner.runDetached(
                    "/bin/sh", ["-c", "openssl s_client -connect 127.0.0.1:\(port) </dev/null 2>/dev/null | openssl x509 -noout -fingerprint -sha256"]
                ).standardOutput
            }
            func file(_ name: String) async throws -> String {
                try await CommandRunner.runDetached(
                    "/bin/sh", ["-c", "openssl x509 -in '\(RunningSimulator.certificates)/\(name).pem' -noout -fingerprint -sha256"]
                ).standardOutput
            }
            #expect(try await served(front.port) == file("mitm-forged"))
            #expect(try await served(genuinePort) == file("valid-127.0.0.1"))

            // A form body crosses the proxy: a wrong password is refused by the genuine token endpoint.
            let token = try await running.curl(
                ["-k", "-d", "grant_type=password&username=alice&password=wrong"], url: running.url(path: "/index.php/apps/oauth2/api/v1/token"))
            #expect(token.status == 400 || token.status == 401, "\(token.status) \(token.body.prefix(200))")
            // Keep-alive through the proxy: two requests on one client connection, both relayed.
            let twice = try await CommandRunner.runDetached(
                "/usr/bin/curl",
                [
                    "-s", "-k", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{http_code} %{num_connects}\n",
                    running.url(), running.url(),
                ]
            ).standardOutput
            #expect(twice == "200 1\n200 0\n", "\(twice)")
            let entries = running.simulator.journal.entries
            #expect(
                entries.filter { $0.mitm == true }.count == entries.filter { $0.mitm == nil }.count, "every request the attacker saw reached the genuine host")
            #expect(entries.contains { $0.mitm == true && $0.body && $0.method == "POST" })
        }
    }

}
