import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// Behind a real corporate proxy: Debian's Squid asking who you are (Basic, Digest), opening TLS
/// (`ssl_bump` with a root of its own, handed to Vigil as a locally added root), and a PAC file
/// that sends one host through it and another direct. Issue 33.
@Suite(
    "Behind Squid", .serialized, .enabled(if: RunningSquid.isInstalled, "needs Debian's squid-openssl: run `make test`"),
    .timeLimit(.minutes(3)))
struct SquidProxyTests {
    static let proxyPassword = "sq-proxy-p4ss"

    let database: String
    init() throws { database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path }

    @Test func aProxyThatAsksIsNamedWithItsSchemesAndRealm() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let squid = try RunningSquid(login: .basic(user: "alice", password: Self.proxyPassword), realm: "Corp Proxy")
            let result = try await CommandRunner.vigilDetached(
                ["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle], environment: ["https_proxy": squid.url])
            #expect(result.status == 1 && result.errorCode == "HTTPError proxy-authentication-required", "\(result.standardError)")
            #expect(result.standardError.contains("realm \"Corp Proxy\"") && result.standardError.contains("Basic"), "\(result.standardError)")
            // Basic over this plain proxy is all it offers: the one command that works, consent included.
            #expect(result.standardError.contains("vigil proxy login http://127.0.0.1:\(squid.port) --user NAME --allow-clear-text"), "\(result.standardError)")
            #expect(running.simulator.journal.entries.isEmpty)
            // A password in https_proxy keeps working, by the same rules: Basic to this plain
            // proxy only with VIGIL_ALLOW_PLAIN_PROXY_CREDENTIALS=1.
            let inURL = "http://alice:\(Self.proxyPassword)@127.0.0.1:\(squid.port)"
            let noConsent = try await CommandRunner.vigilDetached(
                ["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle], environment: ["https_proxy": inURL])
            #expect(noConsent.status == 1 && noConsent.standardError.contains("did not agree"), "\(noConsent.standardError)")
            #expect(!squid.accessLog.contains(" alice "), "\(squid.accessLog)")
            let consent = try await CommandRunner.vigilDetached(
                ["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle],
                environment: ["https_proxy": inURL, "VIGIL_ALLOW_PLAIN_PROXY_CREDENTIALS": "1"])
            #expect(consent.status == 0 && !consent.standardOutput.contains(Self.proxyPassword), "\(consent.standardError)")
            #expect(squid.accessLog.contains(" alice "), "\(squid.accessLog)")

            // The CA's OCSP responder and CRL through the same proxy, by plain http: its 407 is
            // never answered, and said once, as the proxy's to allow (no password to keep).
            var fetching: [String: String?] = ["https_proxy": inURL, "http_proxy": squid.url, "VIGIL_ALLOW_PLAIN_PROXY_CREDENTIALS": "1"]
            let soft = try await CommandRunner.vigilDetached(["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle], environment: fetching)
            #expect(soft.status == 0, "\(soft.standardOutput)\(soft.standardError)")
            #expect(soft.standardOutput.components(separatedBy: "for plain-http fetches").count == 2, "said once: \(soft.standardOutput)")
            #expect(!soft.standardOutput.contains("vigil proxy login"), "no password to keep: \(soft.standardOutput)")
            fetching["VIGIL_CONNECTION_REVOCATION_POLICY"] = "hard-fail"
            let hard = try await CommandRunner.vigilDetached(["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle], environment: fetching)
            #expect(hard.status == 1 && hard.standardOutput.contains("proxy's administrator can let OCSP and CRL fetches through"), "\(hard.standardOutput)")
            #expect(!hard.standardOutput.contains("Only the server's administrator"), "not the server's to fix: \(hard.standardOutput)")
        }
    }

    @Test(.enabled(if: TestPaths.hasKeyring, "needs a Secret Service: run `make test`"))
    func afterProxyLoginAnAccountIsAddedAndCheckedThroughTheProxy() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let squid = try RunningSquid(login: .basic(user: "alice", password: Self.proxyPassword))
            let home = try TestPaths.temporaryDirectory()
            let environment: [String: String?] = [
                "https_proxy": squid.url, "HOME": home.path, "XDG_DATA_HOME": home.path + "/data", "XDG_STATE_HOME": home.path + "/state",
            ]
            func vigil(_ arguments: [String], input: String? = nil) async throws -> CommandResult {
                try await CommandRunner.vigilDetached(arguments, environment: environment, input: input.map { Data(($0 + "\n").utf8) })
            }
            let login = try await vigil(
                ["proxy", "login", squid.url, "--user", "alice", "--password-stdin", "--allow-clear-text", "--log-level", "trace"], input: Self.proxyPassword)
            #expect(login.status == 0, "\(login.standardError)")
            defer { _ = try? CommandRunner.vigil(["proxy", "logout", squid.url], environment: environment) }
            let listed = try await vigil(["proxy", "list", "--json"])
            #expect(listed.standardOutput.contains("\"user\" : \"alice\"") && !listed.standardOutput.contains(Self.proxyPassword), "\(listed.standardOutput)")

            let added = try await vigil(
                [
                    "account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle, "--database", database,
                    "--log-level", "trace",
                ], input: "alice-test-password")
            #expect(added.status == 0, "\(added.standardError)")
            let checked = try await vigil(["account", "check", "--all", "--ca-file", TestPaths.caBundle, "--database", database, "--log-level", "trace"])
            #expect(checked.status == 0, "\(checked.standardOutput)\(checked.standardError)")
            #expect(checked.standardOutput.contains("via \(squid.url) (https_proxy)"), "\(checked.standardOutput)")
            // Every request went through the proxy, as alice; the server got them.
            let log = squid.accessLog
            #expect(log.contains("CONNECT 127.0.0.1:\(URL(string: running.url(path: ""))?.port ?? 0)") && log.contains(" alice "), "\(log)")
            #expect(!running.simulator.journal.entries.isEmpty)
            // The proxy password is in no output and no file under HOME (the keyring is elsewhere).
            for output in [login, listed, added, checked] {
                #expect(!(output.standardOutput + output.standardError).contains(Self.proxyPassword))
            }
            let files = FileManager.default.enumerator(atPath: home.path)?.compactMap { $0 as? String } ?? []
            for file in files {
                let data = FileManager.default.contents(atPath: home.path + "/" + file) ?? Data()
                #expect(data.range(of: Data(Self.proxyPassword.utf8)) == nil, "\(file) holds the proxy password")
            }
        }
    }

    @Test(.enabled(if: TestPaths.hasKeyring, "needs a Secret Service: run `make test`"))
    func basicOverAPlainProxyNeedsConsentDigestDoesNot() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let basic = try RunningSquid(login: .basic(user: "alice", password: Self.proxyPassword))
            let digest = try RunningSquid(login: .digest(user: "alice", password: Self.proxyPassword))
            for squid in [basic, digest] {
                let login = try await CommandRunner.vigilDetached(
                    ["proxy", "login", squid.url, "--user", "alice", "--password-stdin"], input: Data(Self.proxyPassword.utf8))
                #expect(login.status == 0, "\(login.standardError)")
            }
            defer {
                for squid in [basic, digest] { _ = try? CommandRunner.vigil(["proxy", "logout", squid.url]) }
            }
            let refused = try await CommandRunner.vigilDetached(
                ["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle], environment: ["https_proxy": basic.url])
            #expect(refused.status == 1 && refused.errorCode == "HTTPError proxy-authentication-required", "\(refused.standardError)")
            #expect(refused.standardError.contains("vigil proxy login \(basic.url) --user alice --allow-clear-text"), "\(refused.standardError)")
            #expect(!basic.accessLog.contains(" alice "), "no Basic credential was sent: \(basic.accessLog)")
            // The command as printed works; a login again (a new password) keeps the consent.
            for arguments in [["--allow-clear-text"], []] {
                let again = try await CommandRunner.vigilDetached(
                    ["proxy", "login", basic.url, "--user", "alice", "--password-stdin"] + arguments, input: Data(Self.proxyPassword.utf8))
                #expect(again.status == 0, "\(again.standardError)")
                let agreed = try await CommandRunner.vigilDetached(
                    ["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle], environment: ["https_proxy": basic.url])
                #expect(agreed.status == 0, "\(arguments): \(agreed.standardError)")
            }

            let through = try await CommandRunner.vigilDetached(
                ["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle], environment: ["https_proxy": digest.url])
            #expect(through.status == 0, "\(through.standardError)")
            #expect(through.standardOutput.contains("via: \(digest.url) (https_proxy)"), "\(through.standardOutput)")
            #expect(digest.accessLog.contains(" alice "), "\(digest.accessLog)")
        }
    }

    @Test(.enabled(if: TestPaths.hasKeyring, "needs a Secret Service: run `make test`"))
    func aProxyThatNeverAskedGetsNoCredential() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let asking = try RunningSquid(login: .basic(user: "alice", password: Self.proxyPassword))
            let other = try RunningSquid()
            let login = try await CommandRunner.vigilDetached(
                ["proxy", "login", asking.url, "--user", "alice", "--password-stdin", "--allow-clear-text"], input: Data(Self.proxyPassword.utf8))
            #expect(login.status == 0)
            defer { _ = try? CommandRunner.vigil(["proxy", "logout", asking.url]) }
            // The same host, another port: another proxy, which never gets alice's password.
            let through = try await CommandRunner.vigilDetached(
                ["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle], environment: ["https_proxy": other.url])
            #expect(through.status == 0, "\(through.standardError)")
            #expect(!other.accessLog.contains("alice") && other.accessLog.contains("CONNECT"), "\(other.accessLog)")
        }
    }

    /// The TLS-inspecting proxy: its root in the system store (SSL_CERT_FILE: the system bundle
    /// plus it) is named a locally added root; `refuse` refuses it, with nothing sent.
    @Test func aBumpingProxyIsNamedAndCanBeRefused() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let squid = try RunningSquid(bump: true)
            let root = try #require(squid.interceptionRoot)
            let bundle = try TestPaths.temporaryDirectory().appendingPathComponent("system-plus-inspection.pem")
            let system = (try? String(contentsOfFile: "/etc/ssl/certs/ca-certificates.crt", encoding: .utf8)) ?? ""
            try (system + "\n" + (try String(contentsOfFile: root, encoding: .utf8))).write(to: bundle, atomically: true, encoding: .utf8)
            let environment: [String: String?] = ["https_proxy": squid.url, "SSL_CERT_FILE": bundle.path, "SSL_CERT_DIR": "/nonexistent"]

            let text = try await CommandRunner.vigilDetached(["inspect", running.url(path: "")], environment: environment)
            #expect(text.status == 0, "\(text.standardOutput)\(text.standardError)")
            #expect(text.standardOutput.contains("Vigil Test Inspection CA") && text.standardOutput.contains("locally added"), "\(text.standardOutput)")
            #expect(text.standardOutput.contains("[locally-added-root]") && text.standardOutput.contains("profile: rfc5280"), "\(text.standardOutput)")
            let json = try await CommandRunner.vigilDetached(["inspect", running.url(path: ""), "--json"], environment: environment)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
            let verdict = try #require(report["verdict"] as? [String: Any])
            #expect((verdict["basis"] as? [String: Any])?["source"] as? String == "locally-added")
            #expect((verdict["findings"] as? [[String: Any]])?.first?["code"] as? String == "locally-added-root")
            #expect(((report["connection"] as? [String: Any])?["via"] as? [String: Any])?["proxy"] as? String == squid.url)

            // Once the server's own certificate is known (approved for its host and port), the
            // bumped one is called an interception outright.
            var knowing = environment
            knowing["XDG_DATA_HOME"] = try TestPaths.temporaryDirectory().path
            let direct = try await CommandRunner.vigilDetached(["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle, "--json"])
            let own = try #require(try JSONSerialization.jsonObject(with: Data(direct.standardOutput.utf8)) as? [String: Any])
            let fingerprint = try #require(((own["certificates"] as? [[String: Any]])?.first?["fingerprints"] as? [String: Any])?["sha256"] as? String)
            var approving = knowing
            approving["https_proxy"] = nil
            let approved = try await CommandRunner.vigilDetached(
                ["certificates", "approve", running.url(path: ""), "--fingerprint", fingerprint], environment: approving)
            #expect(approved.status == 0, "\(approved.standardOutput)\(approved.standardError)")
            let intercepted = try await CommandRunner.vigilDetached(["inspect", running.url(path: "")], environment: knowing)
            // Named first: the headline, then by which root; never TRUSTED above it.
            let lines = intercepted.standardOutput.split(separator: "\n")
            #expect(lines.first?.hasPrefix("INTERCEPTED") == true && !intercepted.standardOutput.contains("TRUSTED "), "\(intercepted.standardOutput)")
            #expect(lines.dropFirst().first?.contains("Vigil Test Inspection CA") == true, "\(intercepted.standardOutput)")
            #expect(!text.standardOutput.contains("[interception]"), "nothing known, no interception claimed")

            var refusing = environment
            refusing["VIGIL_CONNECTION_LOCALLY_ADDED_ROOTS"] = "refuse"
            let refused = try await CommandRunner.vigilDetached(["inspect", running.url(path: ""), "--json"], environment: refusing)
            #expect(refused.status == 1 && refused.standardOutput.contains("locally-added-root-refused"), "\(refused.standardOutput)")
            let setup = try await CommandRunner.vigilDetached(
                ["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--database", database], environment: refusing,
                input: Data("alice-test-password\n".utf8))
            #expect(setup.status == 1, "\(setup.standardOutput)\(setup.standardError)")
            #expect(running.simulator.journal.entries.isEmpty, "nothing was sent through the inspecting proxy")

            // An account that knows the server's own certificate (approved at setup, direct),
            // checked through the bumping proxy: the line names the interception and its root first.
            let accounts = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
            let added = try await CommandRunner.vigilDetached(
                ["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--approve-certificate", fingerprint, "--database", accounts],
                environment: approving, input: Data("alice-test-password\n".utf8))
            #expect(added.status == 0, "\(added.standardOutput)\(added.standardError)")
            let sent = running.simulator.journal.entries.count
            let checked = try await CommandRunner.vigilDetached(["account", "check", "--all", "--database", accounts], environment: knowing)
            #expect(checked.status == 1 && checked.standardOutput.contains(": CHANGED: INTERCEPTED by "), "\(checked.standardOutput)\(checked.standardError)")
            #expect(checked.standardOutput.contains("Vigil Test Inspection CA"), "\(checked.standardOutput)")
            #expect(running.simulator.journal.entries.count == sent, "nothing was sent through the interception")
        }
    }

    /// Most corporate proxies ask for Kerberos: Debian's MIT KDC with a realm of the test's own,
    /// Squid with negotiate_kerberos_auth, and a ticket from kinit in the test's own cache. Vigil
    /// goes through with the ticket (no password kept anywhere), and says what is missing without
    /// one or with an expired one, with the kinit that gets one.
    @Test(
        .enabled(if: RunningKDC.isInstalled, "needs Debian's krb5-kdc, krb5-admin-server and krb5-user: run `make test`"),
        .enabled(if: TestPaths.hasKeyring, "needs a Secret Service: run `make test`"))
    func kerberosThroughAProxyThatAsksForNegotiate() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let kdc = try RunningKDC()
            let squid = try RunningSquid(login: .negotiate(kdc))
            let caches = try TestPaths.temporaryDirectory().path
            func vigil(_ arguments: [String], cache: String) async throws -> CommandResult {
                var environment = kdc.clientEnvironment(cache: caches + "/" + cache)
                environment["https_proxy"] = squid.url
                return try await CommandRunner.vigilDetached(arguments, environment: environment, input: Data("alice-test-password\n".utf8))
            }
            // No ticket: what is missing, and the command that gets one; nothing reached the server.
            let none = try await vigil(["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle], cache: "none")
            #expect(none.status == 1 && none.errorCode == "HTTPError proxy-authentication-required", "\(none.standardError)")
            #expect(none.standardError.contains("you have no Kerberos ticket") && none.standardError.contains("kinit USER@REALM"), "\(none.standardError)")
            #expect(running.simulator.journal.entries.isEmpty)

            // A ticket: account add and account check go through, as alice@VIGIL.TEST.
            try kdc.kinit(cache: caches + "/valid")
            let added = try await vigil(
                ["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin", "--ca-file", TestPaths.caBundle, "--database", database],
                cache: "valid")
            #expect(added.status == 0, "\(added.standardOutput)\(added.standardError)")
            let checked = try await vigil(["account", "check", "--all", "--database", database], cache: "valid")
            #expect(
                checked.status == 0 && checked.standardOutput.contains("via \(squid.url) (https_proxy)"), "\(checked.standardOutput)\(checked.standardError)")
            #expect(squid.accessLog.contains("alice@VIGIL.TEST"), "the proxy saw the ticket's principal: \(squid.accessLog)")
            #expect(!running.simulator.journal.entries.isEmpty)

            // An expired ticket: said as expired, with the kinit for its principal.
            try kdc.kinit(cache: caches + "/short", lifetime: "2s")
            try await Task.sleep(for: .seconds(3))
            let expired = try await vigil(["account", "check", "--all", "--database", database], cache: "short")
            #expect(expired.status == 1 && expired.standardOutput.contains("REFUSED"), "\(expired.standardOutput)\(expired.standardError)")
            #expect(
                expired.standardOutput.contains("your Kerberos ticket for alice@VIGIL.TEST has expired")
                    && expired.standardOutput.contains("kinit alice@VIGIL.TEST"), "\(expired.standardOutput)")
            squid.stop()
            kdc.stop()
        }
    }

    /// A server that is down behind the proxy: the proxy could not reach it (its CONNECT's 503),
    /// never "the TLS handshake failed" (no handshake with the server began).
    @Test func aServerDownBehindTheProxyIsSaidAsSuch() async throws {
        let squid = try RunningSquid()
        let down = try await CommandRunner.vigilDetached(["inspect", "https://127.0.0.1:1"], environment: ["https_proxy": squid.url])
        #expect(down.status == 2 && down.errorCode == "HTTPError proxy", "\(down.standardError)")
        #expect(down.standardError.contains("could not reach https://127.0.0.1:1 (it answered CONNECT with 503)"), "\(down.standardError)")
        #expect(!down.standardError.contains("handshake"), "\(down.standardError)")
    }

    @Test func aPACFileSendsOneHostThroughTheProxyAndAnotherDirect() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let squid = try RunningSquid()
            let pac = try TestPaths.temporaryDirectory().appendingPathComponent("corp.pac")
            try """
            function FindProxyForURL(url, host) {
                if (shExpMatch(host, "127.0.0.1")) return "PROXY 127.0.0.1:\(squid.port); DIRECT";
                return "DIRECT";
            }
            """.write(to: pac, atomically: true, encoding: .utf8)
            let environment: [String: String?] = ["VIGIL_CONNECTION_PROXY_AUTOCONFIG_URL": "file://" + pac.path, "https_proxy": nil]
            let first = running.url(host: 1, path: "")
            let second = running.url(host: 2, path: "")
            let which = try await CommandRunner.vigilDetached(["proxy", "which", first, "--json"], environment: environment)
            #expect(
                which.status == 0 && which.standardOutput.contains("\"proxies\" : [\n    \"\(squid.url)\",\n    \"direct\"\n  ]"), "\(which.standardOutput)")
            let direct = try await CommandRunner.vigilDetached(["proxy", "which", second], environment: environment)
            #expect(direct.status == 0 && direct.standardOutput.hasPrefix("direct\n"), "\(direct.standardOutput)")

            let viaProxy = try await CommandRunner.vigilDetached(["inspect", first, "--ca-file", TestPaths.caBundle], environment: environment)
            #expect(viaProxy.standardOutput.contains("via: \(squid.url) (connection.proxy-autoconfig-url"), "\(viaProxy.standardOutput)")
            let notViaProxy = try await CommandRunner.vigilDetached(["inspect", second, "--ca-file", TestPaths.caBundle], environment: environment)
            #expect(notViaProxy.standardOutput.contains("via: direct (connection.proxy-autoconfig-url"), "\(notViaProxy.standardOutput)")
            #expect(squid.accessLog.contains("CONNECT 127.0.0.1:") && !squid.accessLog.contains("127.0.0.2"), "\(squid.accessLog)")
            // A first proxy that cannot be reached: `via:` is the way taken, and says what was passed over.
            let dead = closedLoopbackPort()
            let fallback = pac.deletingLastPathComponent().appendingPathComponent("fallback.pac")
            try "function FindProxyForURL(url, host) { return \"PROXY 127.0.0.1:\(dead); DIRECT\"; }".write(to: fallback, atomically: true, encoding: .utf8)
            var falling = environment
            falling["VIGIL_CONNECTION_PROXY_AUTOCONFIG_URL"] = "file://" + fallback.path
            let passedOver = try await CommandRunner.vigilDetached(["inspect", first, "--ca-file", TestPaths.caBundle], environment: falling)
            #expect(
                passedOver.status == 0 && passedOver.standardOutput.contains("via: direct (connection.proxy-autoconfig-url")
                    && passedOver.standardOutput.contains("; not reached: http://127.0.0.1:\(dead))"), "\(passedOver.standardOutput)\(passedOver.standardError)"
            )

            // The same file served over HTTP on loopback (Python's http.server), as a PAC server would.
            let port = closedLoopbackPort()
            let server = try ServerProcess.start(
                "/usr/bin/python3", ["-m", "http.server", "--bind", "127.0.0.1", String(port), "--directory", pac.deletingLastPathComponent().path])
            defer {
                // SIGKILL: the test runner's children may inherit an ignored SIGTERM.
                kill(server.processIdentifier, SIGKILL)
                server.waitUntilExit()
            }
            #expect(ServerProcess.waitUntilListening(server, port: port, tries: 100))
            let served: [String: String?] = ["VIGIL_CONNECTION_PROXY_AUTOCONFIG_URL": "http://127.0.0.1:\(port)/corp.pac", "https_proxy": nil]
            let whichServed = try await CommandRunner.vigilDetached(["proxy", "which", first], environment: served)
            #expect(whichServed.standardOutput.hasPrefix("\(squid.url), then direct\n"), "\(whichServed.standardOutput)")
            let viaServed = try await CommandRunner.vigilDetached(["inspect", second, "--ca-file", TestPaths.caBundle], environment: served)
            #expect(
                viaServed.standardOutput.contains("via: direct (connection.proxy-autoconfig-url http://127.0.0.1:\(port)/corp.pac"),
                "\(viaServed.standardOutput)")
        }
    }

    /// GNOME's proxy setting (org.gnome.system.proxy, read by gsettings from a keyfile backend
    /// here): manual, with an address range that bypasses it.
    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/gsettings")
                && FileManager.default.fileExists(atPath: "/usr/share/glib-2.0/schemas/org.gnome.system.proxy.gschema.xml"),
            "needs gsettings and gsettings-desktop-schemas: run `make test`"))
    func theGNOMEDesktopsProxyIsUsedWhenNothingElseSaysSo() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let squid = try RunningSquid()
            let config = try TestPaths.temporaryDirectory()
            try FileManager.default.createDirectory(at: config.appendingPathComponent("glib-2.0/settings"), withIntermediateDirectories: true)
            try """
            [system/proxy]
            mode='manual'
            ignore-hosts=['localhost', '127.0.0.2/32']

            [system/proxy/https]
            host='127.0.0.1'
            port=\(squid.port)
            """.write(to: config.appendingPathComponent("glib-2.0/settings/keyfile"), atomically: true, encoding: .utf8)
            let desktop: [String: String?] = [
                "XDG_CURRENT_DESKTOP": "ubuntu:GNOME", "GSETTINGS_BACKEND": "keyfile", "XDG_CONFIG_HOME": config.path, "https_proxy": nil,
                "HTTPS_PROXY": nil, "all_proxy": nil,
            ]
            let which = try await CommandRunner.vigilDetached(["proxy", "which", running.url(host: 1, path: "")], environment: desktop)
            #expect(which.standardOutput.hasPrefix("\(squid.url)\n") && which.standardOutput.contains("GNOME"), "\(which.standardOutput)")
            let bypassed = try await CommandRunner.vigilDetached(["proxy", "which", running.url(host: 2, path: "")], environment: desktop)
            #expect(bypassed.standardOutput.hasPrefix("direct\n") && bypassed.standardOutput.contains("ignore-hosts"), "\(bypassed.standardOutput)")
            let through = try await CommandRunner.vigilDetached(
                ["inspect", running.url(host: 1, path: ""), "--ca-file", TestPaths.caBundle], environment: desktop)
            #expect(through.status == 0 && through.standardOutput.contains("via: \(squid.url) (GNOME"), "\(through.standardOutput)")
            #expect(squid.accessLog.contains("CONNECT 127.0.0.1:"), "\(squid.accessLog)")
            // Not a GNOME desktop: its settings are not asked.
            var elsewhere = desktop
            elsewhere["XDG_CURRENT_DESKTOP"] = "KDE"
            let other = try await CommandRunner.vigilDetached(["proxy", "which", running.url(host: 1, path: "")], environment: elsewhere)
            #expect(other.standardOutput.hasPrefix("direct\n"), "\(other.standardOutput)")
        }
    }

    /// A PAC file that cannot be loaded or run is an error, never a silent direct connection.
    @Test func aBrokenPACFileIsAnErrorNotADirectConnection() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let directory = try TestPaths.temporaryDirectory()
            let broken = directory.appendingPathComponent("broken.pac")
            try "function FindProxyForURL(url, host) { return ".write(to: broken, atomically: true, encoding: .utf8)
            let looping = directory.appendingPathComponent("looping.pac")
            try "function FindProxyForURL(url, host) { while (true) {} }".write(to: looping, atomically: true, encoding: .utf8)
            // Each says why in words: never a bare exit status, never "cannot be read" alone.
            for (pac, why) in [
                ("file://" + broken.path, "failed to run"), ("file://" + looping.path, "after using its 2 s of CPU"),
                ("file://" + directory.path + "/missing.pac", "cannot be read (No such file or directory)"),
                ("http://127.0.0.1:\(closedLoopbackPort())/x.pac", "could not connect"),
            ] {
                let result = try await CommandRunner.vigilDetached(
                    ["inspect", running.url(path: ""), "--ca-file", TestPaths.caBundle], environment: ["VIGIL_CONNECTION_PROXY_AUTOCONFIG_URL": pac])
                #expect(result.status == 2 && result.errorCode == "HTTPError proxy", "\(pac): \(result.standardError)")
                #expect(result.standardError.contains("Nothing was sent") && result.standardError.contains(why), "\(pac): \(result.standardError)")
                #expect(!result.standardError.contains("exit status"), "\(pac): \(result.standardError)")
            }
            #expect(running.simulator.journal.connections.isEmpty, "no connection was made to the server")
        }
    }
}
