import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// `vigil account`, token accounts (OAuth2, OpenID Connect, Login Flow v2) through the CLI:
/// refreshes, browsers, logins again.
extension AccountCommandTests {
    /// A provider that issues no refresh token: add, show and check say when the access token
    /// expires and that a new login is needed then; JSON carries the time.
    @Test func anAccountWithoutARefreshTokenSaysWhenItEnds() async throws {
        try await withRunningSimulator("oidc-no-refresh-token") { (running) async throws in
            let browser = ["BROWSER": "/usr/bin/curl -s -o /dev/null -L --max-time 10 --cacert \(TestPaths.caBundle)"]
            let ca = ["--ca-file", TestPaths.caBundle, "--database", database]
            let added = try await CommandRunner.vigilDetached(["account", "add", running.url(path: ""), "--user", "alice"] + ca, environment: browser)
            #expect(added.status == 0 && added.standardOutput.contains("the provider issued no refresh token"), "\(added.standardOutput)\(added.standardError)")
            let id = try await accountID()
            let shown = try await vigil(["account", "show", id])
            #expect(
                shown.standardOutput.contains("issued no refresh token") && shown.standardOutput.contains("vigil account login \(id)"),
                "\(shown.standardOutput)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(try await vigil(["account", "show", id, "--json"]).standardOutput.utf8)) as? [String: Any])
            let account = try #require(json["account"] as? [String: Any])
            #expect(account["noRefreshToken"] as? Bool == true && account["tokenExpiresAt"] != nil, "\(account)")
            let checked = try await vigil(["account", "check", id, "--json", "--ca-file", TestPaths.caBundle])
            let row = try #require((try JSONSerialization.jsonObject(with: Data(checked.standardOutput.utf8)) as? [[String: Any]])?.first)
            #expect(checked.status == 0 && row["refreshable"] as? Bool == false && (row["tokenExpiresAt"] as? String)?.isEmpty == false, "\(row)")
            #expect((row["message"] as? String)?.contains("a new login is needed then (vigil account login \(id) --database=\(database))") == true, "\(row)")
            #expect(try await vigil(["account", "remove", id, "--ca-file", TestPaths.caBundle]).status == 0)
        }
    }

    @Test func anOpenIDConnectAccountsLifeThroughTheCLI() async throws {
        try await withRunningSimulator("oidc") { (running) async throws in
            // $BROWSER names the browser (here curl, trusting the test CA, as a browser trusts its store).
            let browser = ["BROWSER": "/usr/bin/curl -s -o /dev/null -L --max-time 10 --cacert \(TestPaths.caBundle)"]
            let ca = ["--ca-file", TestPaths.caBundle, "--database", database]
            let added = try await CommandRunner.vigilDetached(["account", "add", running.url(path: ""), "--user", "alice"] + ca, environment: browser)
            #expect(added.status == 0, "\(added.standardOutput)\(added.standardError)")
            #expect(
                added.standardOutput.contains("(com.owncloud.openid-connect)")
                    && added.standardOutput.contains("the access and refresh tokens are in the keyring"))
            let id = try await accountID()

            let shown = try await vigil(["account", "show", id])
            #expect(shown.standardOutput.contains("status: ready") && shown.standardOutput.contains("tokens: in the keyring"), "\(shown.standardOutput)")
            let checked = try await vigil(["account", "check", id, "--ca-file", TestPaths.caBundle])
            #expect(checked.status == 0 && checked.standardOutput.contains(": OK: "), "\(checked.standardOutput)\(checked.standardError)")

            let again = try await CommandRunner.vigilDetached(["account", "login", id] + ca, environment: browser)
            #expect(again.status == 0 && again.standardOutput.contains("logged in again"), "\(again.standardOutput)\(again.standardError)")

            let removed = try await vigil(["account", "remove", id, "--ca-file", TestPaths.caBundle])
            #expect(
                removed.status == 0 && removed.standardOutput.contains("revoked at the server: refresh-token, access-token"),
                "\(removed.standardOutput)\(removed.standardError)")
            #expect(running.simulator.responder.oidc.revokedCount == 2)
        }
    }

    /// The seeds' race with real processes: two `vigil account check` at once on an account whose
    /// token is due. They serialise on the account's lock file; the second takes the first's new
    /// tokens, so the provider sees one refresh and no refresh token is spent twice.
    @Test func twoProcessesRefreshAnAccountOnce() async throws {
        try await withRunningSimulator("oidc") { (running) async throws in
            let state = try TestPaths.temporaryDirectory().path
            let browser: [String: String?] = [
                "BROWSER": "/usr/bin/curl -s -o /dev/null -L --max-time 10 --cacert \(TestPaths.caBundle)", "XDG_STATE_HOME": state,
            ]
            let ca = ["--ca-file", TestPaths.caBundle, "--database", database]
            // Set up with tokens treated as living 60 s: under the two-minute margin, due at once.
            var setup = browser
            setup["VIGIL_AUTHENTICATION_OAUTH2_OA2_EXPIRATION_OVERRIDE_SECONDS"] = "60"
            #expect(try await CommandRunner.vigilDetached(["account", "add", running.url(path: ""), "--user", "alice"] + ca, environment: setup).status == 0)
            let id = try await accountID()
            let tokenRequests = { running.simulator.journal.entries.filter { $0.method == "POST" && $0.path.hasSuffix("/api/v1/token") }.count }
            #expect(tokenRequests() == 1, "the code exchange")
            // The checks treat refreshed tokens as living 130 s: not due again once refreshed.
            var checks = browser
            checks["VIGIL_AUTHENTICATION_OAUTH2_OA2_EXPIRATION_OVERRIDE_SECONDS"] = "130"
            async let first = CommandRunner.vigilDetached(["account", "check", id] + ca, environment: checks)
            async let second = CommandRunner.vigilDetached(["account", "check", id] + ca, environment: checks)
            let (a, b) = try await (first, second)
            #expect(a.status == 0 && b.status == 0, "\(a.standardOutput)\(a.standardError)\(b.standardOutput)\(b.standardError)")
            #expect(tokenRequests() == 2, "one refresh for both processes")
            #expect(try await vigil(["account", "remove", id, "--no-revoke"]).status == 0)
        }
    }

    /// `vigil account check` killed with SIGKILL at random points of a token refresh: the next
    /// check works, or says in words that the account must log in again (exit 75: a kill after the
    /// refresh token was sent and before the keyring kept its successor, when it may be spent and
    /// is never presented twice). Never a crash, a locked database, a replayed refresh token or a
    /// token shown; the database stays whole.
    @Test func killedRefreshesLeaveAWorkingAccountOrAClearNewLogin() async throws {
        try await withRunningSimulator("oidc") { (running) async throws in
            let state = try TestPaths.temporaryDirectory().path
            // Tokens treated as living 60 s: under the two-minute margin, so every check refreshes.
            let due: [String: String?] = [
                "BROWSER": "/usr/bin/curl -s -o /dev/null -L --max-time 10 --cacert \(TestPaths.caBundle)", "XDG_STATE_HOME": state,
                "VIGIL_AUTHENTICATION_OAUTH2_OA2_EXPIRATION_OVERRIDE_SECONDS": "60",
            ]
            let ca = ["--ca-file", TestPaths.caBundle, "--database", database]
            #expect(try await CommandRunner.vigilDetached(["account", "add", running.url(path: ""), "--user", "alice"] + ca, environment: due).status == 0)
            let id = try await accountID()
            var working = 0
            var newLogin = false
            var random = SeededRandom.fromEnvironment(default: 0x4B11_7E57)
            for round in 0..<10 where !newLogin {
                let killed = try CommandRunner.startVigil(["account", "check", id] + ca, environment: due)
                usleep(UInt32(round * 25_000 + Int.random(in: 0..<40_000, using: &random)))
                kill(killed.processIdentifier, SIGKILL)
                killed.waitUntilExit()
                let after = try await CommandRunner.vigilDetached(["account", "check", id] + ca, environment: due)
                #expect(!after.standardError.contains("database is locked"), "kill timings from VIGIL_TEST_SEED=\(random.seed)")
                if after.status == 0 {
                    working += 1
                } else {
                    #expect(
                        after.status == 75 && after.standardOutput.contains("LOGIN-EXPIRED") && after.standardOutput.contains("vigil account login \(id)"),
                        "\(after.standardOutput)\(after.standardError) (kill timings from VIGIL_TEST_SEED=\(random.seed))")
                    newLogin = true
                }
            }
            #expect(working > 0 || newLogin)
            let integrity = try CommandRunner.run("/usr/bin/sqlite3", [database, "PRAGMA integrity_check"])
            #expect(integrity.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "ok")
            let tokens = running.simulator.journal.entries.filter { $0.method == "POST" && $0.path.hasSuffix("/api/v1/token") }.count
            #expect(tokens >= 2, "the checks refreshed: \(tokens) token requests")
            #expect(running.simulator.responder.oidc.refreshTokenReuses == 0, "no spent refresh token was presented again")
            #expect(try await vigil(["account", "remove", id, "--no-revoke"]).status == 0)
        }
    }

    @Test func aBasicAccountLogsInAgainOnlyWithTheRightPassword() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let ca = ["--ca-file", TestPaths.caBundle]
            #expect(
                try await vigil(["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin"] + ca, password: "alice-test-password").status
                    == 0)
            let id = try await accountID()
            let wrong = try await vigil(["account", "login", id, "--password-stdin"] + ca, password: "not-the-password")
            #expect(wrong.status == 1 && wrong.errorCode == "AccountSetupError wrong-credentials", "\(wrong.standardError)")
            let right = try await vigil(["account", "login", id, "--password-stdin"] + ca, password: "alice-test-password")
            #expect(right.status == 0 && right.standardOutput.contains("the password is in the keyring"), "\(right.standardOutput)\(right.standardError)")
            #expect(!right.standardOutput.contains("alice-test-password") && !wrong.standardError.contains("not-the-password"))
            #expect(try await vigil(["account", "remove", id]).status == 0)
        }
    }

    @Test func oauth2WithABrowserCommand() async throws {
        try await withRunningSimulator("bearer-only") { (running) async throws in
            let command = [
                "account", "add", running.url(path: ""), "--user", "alice", "--method", "oauth2", "--ca-file", TestPaths.caBundle,
                "--browser", "/usr/bin/curl -s -o /dev/null -L --max-time 10 --cacert \(TestPaths.caBundle)", "--database", database,
            ]
            let unconfigured = try await CommandRunner.vigilDetached(command)
            #expect(unconfigured.status == 78 && unconfigured.errorCode == "AccountSetupError configuration", "\(unconfigured.standardError)")
            // Registered on another server, the client is not used here either.
            let elsewhere = try await CommandRunner.vigilDetached(
                command,
                environment: [
                    "VIGIL_AUTHENTICATION_OAUTH2_OA2_CLIENT_ID": OIDCProvider.staticClientID,
                    "VIGIL_AUTHENTICATION_OAUTH2_OA2_CLIENT_SERVER": "https://cloud.example.org",
                ])
            #expect(elsewhere.status == 78 && elsewhere.errorCode == "AccountSetupError configuration", "\(elsewhere.standardError)")
            let added = try await CommandRunner.vigilDetached(
                command,
                environment: [
                    "VIGIL_AUTHENTICATION_OAUTH2_OA2_CLIENT_ID": OIDCProvider.staticClientID,
                    "VIGIL_AUTHENTICATION_OAUTH2_OA2_CLIENT_SERVER": running.url(path: ""),
                ])
            #expect(added.status == 0, "\(added.standardOutput)\(added.standardError)")
            #expect(added.standardOutput.contains("(com.owncloud.oauth2)"))
            let entries = running.simulator.journal.entries
            let check = try #require(entries.firstIndex { $0.method == "PROPFIND" && $0.authorization })
            #expect(
                entries[..<check].filter(\.authorization).allSatisfy { $0.path.hasSuffix("/cloud/user") },
                "before the files check, the token goes only to the server's user endpoint (whose token it is)")
            let id = try #require(
                (try JSONSerialization.jsonObject(with: Data(try await vigil(["account", "list", "--json"]).standardOutput.utf8)) as? [[String: Any]])?.first?[
                    "id"] as? String)
            let removed = try await vigil(["account", "remove", id])
            #expect(
                removed.status == 0 && removed.standardOutput.contains("removed from the keyring: access-token, refresh-token"), "\(removed.standardOutput)")
        }
    }

    /// Nextcloud's Login Flow v2 through the CLI: the browser command opens the login page (no
    /// loopback), the app password goes to the keyring and is shown nowhere, a check in a new
    /// process passes with it, and `remove` revokes it at the server (which records the DELETE).
    @Test func aLoginFlowAccountsLifeThroughTheCLI() async throws {
        try await withRunningSimulator("login-flow-v2") { (running) async throws in
            let ca = ["--ca-file", TestPaths.caBundle]
            let added = try await vigil(
                [
                    "account", "add", running.url(path: ""), "--user", "alice", "--browser",
                    "/usr/bin/curl -s -o /dev/null -L --max-time 10 --cacert \(TestPaths.caBundle)",
                ]
                    + ca)
            #expect(added.status == 0, "\(added.standardOutput)\(added.standardError)")
            #expect(
                added.standardOutput.contains("(com.nextcloud.login-flow-v2)") && added.standardOutput.contains("the app password is in the keyring")
                    && added.standardOutput.contains("is a Nextcloud server"), "\(added.standardOutput)")
            // The poll token and the app password are in no output (the login page's URL is shown
            // for a user without a browser: its token is the browser's).
            let secrets = (running.simulator.responder.loginFlow?.issuedSecrets() ?? []).filter { !$0.what.contains("login token") }
            #expect(secrets.count == 3, "the poll token, the app password and its Basic form: \(secrets.map(\.what))")
            #expect(!secrets.contains { (added.standardOutput + added.standardError).contains($0.value) })
            let id = try await accountID()
            let checked = try await vigil(["account", "check", id] + ca)
            #expect(checked.status == 0, "\(checked.standardOutput)\(checked.standardError)")
            let removed = try await vigil(["account", "remove", id] + ca)
            #expect(removed.status == 0 && removed.standardOutput.contains("revoked at the server: app password"), "\(removed.standardOutput)")
            #expect(running.simulator.responder.loginFlow?.revokedCount == 1)
            let deletes = running.simulator.journal.entries.filter { $0.method == "DELETE" && $0.path == "/ocs/v2.php/core/apppassword" }
            #expect(deletes.count == 1 && deletes.first?.status == 200 && deletes.first?.authorization == true)
            // A password on standard input is a script's: Basic where the server offers it, no browser.
            let scripted = try await vigil(
                ["account", "add", running.url(path: ""), "--user", "alice", "--password-stdin"] + ca, password: "alice-test-password")
            #expect(scripted.status == 0 && scripted.standardOutput.contains("(com.owncloud.basicauth)"), "\(scripted.standardOutput)\(scripted.standardError)")
            #expect(try await vigil(["account", "remove", try await accountID()]).status == 0)
        }
    }
}
