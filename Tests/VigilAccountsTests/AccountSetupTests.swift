import Foundation
import Testing
import VigilAccounts
import VigilAuth
import VigilCertificates
import VigilHTTP
import VigilSecrets
import VigilSimulator
import VigilStore
import VigilTestSupport

/// The user, scripted: records what was asked, in order.
final class ScriptedUser: AccountSetupInteraction, Sendable {
    let approves: Bool
    let approvesRedirects: Bool
    let presentsCredentials: Bool
    let password: String?
    private let log = RecordedLines()

    init(approves: Bool = false, approvesRedirects: Bool = false, presentsCredentials: Bool = false, password: String? = "alice-test-password") {
        self.approves = approves
        self.approvesRedirects = approvesRedirects
        self.presentsCredentials = presentsCredentials
        self.password = password
    }

    var asked: [String] { log.all }
    private func note(_ text: String) { log.append(text) }

    func review(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async {
        note(evaluation.verdict.isTrusted ? "review: trusted" : "review: untrusted")
    }
    func approveCertificate(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async -> Bool {
        note("approve?")
        return approves
    }
    func approveRedirect(_ redirect: Redirect, from: String) async -> Bool {
        note("redirect?")
        return approvesRedirects
    }
    func presentCredentials(_ what: String, givenFor origin: String, to target: String) async -> Bool {
        note("credentials?")
        return presentsCredentials
    }
    func password(user: String, server: String) async -> Secret? {
        note("password?")
        return password.map(Secret.init)
    }
    /// The browser stand-in: curl follows the authorization redirect to the loopback listener.
    func openBrowser(_ url: String) async {
        note("browser")
        _ = try? await CommandRunner.runDetached("/usr/bin/curl", ["-s", "-o", "/dev/null", "-L", "--max-time", "10", "--cacert", TestPaths.caBundle, url])
    }
    func progress(_ message: String) async {}
}

/// Account setup against the simulator over real TLS, with a real SQLite file and the real keyring.
@Suite(
    "Account setup, live", .serialized,
    .enabled(if: TestPaths.hasKeyring, "needs a Secret Service: run `make test` (dbus-run-session + gnome-keyring)"), .timeLimit(.minutes(3)))
struct AccountSetupTests {
    let database: VigilDatabase
    let keyring = KeyringSecretStore()

    init() throws {
        database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
    }

    func setup(_ configure: (inout AccountSetup.Options) -> Void = { _ in }) throws -> AccountSetup {
        var options = AccountSetup.Options()
        options.timeout = .seconds(10)
        configure(&options)
        return AccountSetup(
            evaluator: try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])), approvals: CertificateApprovals(database: database),
            accounts: Accounts(database: database), secrets: keyring, options: options)
    }

    func expectFailure(_ code: AccountSetupError.Code, _ body: () async throws -> Account) async {
        do {
            _ = try await body()
            Issue.record("expected \(code), the account was added")
        } catch let error as AccountSetupError {
            #expect(error.code == code, "\(error)")
        } catch {
            Issue.record("expected \(code), got \(error)")
        }
    }

    @Test func aTrustedServerWithBasic() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let user = ScriptedUser()
            let account = try await setup().add(server: running.url(path: ""), user: "alice", interaction: user)
            #expect(account.method == "com.owncloud.basicauth")
            #expect(user.asked == ["review: trusted", "password?"], "the certificate is shown first, the password asked last")
            let entries = running.simulator.journal.entries
            // The credential goes first to the files check (the root listed, its first file
            // downloaded), then (once it worked) to the capabilities and user endpoints; nothing
            // before the check carries it.
            let authorized = entries.filter(\.authorization)
            #expect(
                authorized.map(\.method) == ["PROPFIND", "GET", "GET", "GET"] && authorized.first?.path.hasPrefix("/remote.php/dav/files/alice") == true,
                "only the check and what follows it carry the credential: \(entries.map { "\($0.method) \($0.path) \($0.authorization)" })")
            #expect(authorized.dropFirst().first?.path == "/remote.php/dav/files/alice/welcome.txt", "the listing's first file is downloaded")
            #expect(entries.prefix { !$0.authorization }.count == entries.count - 4)
            let key = try SecretKey(account: account.secretAccount, kind: .password)
            defer { _ = try? keyring.remove(key) }
            #expect(try await keyring.secret(for: key) == Secret("alice-test-password"))
            #expect(try await Accounts(database: database).list().map(\.user) == ["alice"])
            await expectFailure(.duplicate) { try await setup().add(server: running.url(path: ""), user: "alice", interaction: ScriptedUser()) }
        }
    }

    @Test func anUntrustedCertificateDeclinedStopsEverything() async throws {
        try await withRunningSimulator("self-signed") { (running) async throws in
            let user = ScriptedUser(approves: false)
            await expectFailure(.certificateRejected) { try await setup().add(server: running.url(path: ""), user: "alice", interaction: user) }
            #expect(user.asked == ["review: untrusted", "approve?"])
            #expect(running.simulator.journal.entries.isEmpty, "not one request reached the server")
            #expect(try await CertificateApprovals(database: database).list().isEmpty)
        }
    }

    @Test func anApprovedCertificateIsStoredAndAudited() async throws {
        try await withRunningSimulator("self-signed") { (running) async throws in
            let user = ScriptedUser(approves: true)
            let account = try await setup { $0.method = .basicAuth }.add(server: running.url(path: ""), user: "alice", interaction: user)
            defer { _ = try? keyring.remove(try SecretKey(account: account.secretAccount, kind: .password)) }
            #expect(user.asked == ["review: untrusted", "approve?", "password?"])
            #expect(try await CertificateApprovals(database: database).list().count == 1)
            #expect(try await database.auditTrail().map(\.kind) == [.certificateApproved, .accountAdded])
        }
    }

    @Test func aCertificateForAnotherNameCannotBeApproved() async throws {
        try await withRunningSimulator("wrong-host") { (running) async throws in
            let user = ScriptedUser(approves: true)
            await expectFailure(.certificateRejected) { try await setup().add(server: running.url(path: ""), user: "alice", interaction: user) }
            #expect(user.asked == ["review: untrusted"], "no approval is offered")
            #expect(running.simulator.journal.entries.isEmpty)
        }
    }

    @Test func aWrongPasswordAddsNothing() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            await expectFailure(.wrongCredentials) {
                try await setup().add(server: running.url(path: ""), user: "alice", interaction: ScriptedUser(password: "wrong"))
            }
            #expect(try await Accounts(database: database).list().isEmpty)
            #expect(try await keyring.secret(for: SecretKey(account: "alice@\(running.url(path: ""))", kind: .password)) == nil)
        }
    }

    @Test func aRedirectIsReportedAndTheCredentialStaysHome() async throws {
        try await withRunningSimulator("redirect-cross-host-302") { (running) async throws in
            let user = ScriptedUser()
            await expectFailure(.redirected) { try await setup().add(server: running.url(path: ""), user: "alice", interaction: user) }
            #expect(!user.asked.contains("password?"))
            #expect(running.simulator.journal.entries.allSatisfy { $0.host == "127.0.0.1" && !$0.authorization })
        }
    }

    /// Approved, a status.php redirect to another host restarts setup there: its certificate is
    /// reviewed, and the first host never sees a credential.
    @Test func anApprovedRedirectMovesSetupToTheNewServer() async throws {
        try await withRunningSimulator("redirect-cross-host-302") { (running) async throws in
            let user = ScriptedUser(approvesRedirects: true)
            let account = try await setup { $0.method = .basicAuth }.add(server: running.url(path: ""), user: "alice", interaction: user)
            defer { _ = try? keyring.remove(try SecretKey(account: account.secretAccount, kind: .password)) }
            #expect(account.server == running.url(host: 2, path: ""))
            #expect(user.asked == ["review: trusted", "redirect?", "review: trusted", "password?"])
            let first = running.simulator.journal.entries.filter { $0.host == "127.0.0.1" }
            #expect(first.map(\.path) == ["/status.php"] && first.allSatisfy { !$0.authorization })
            #expect(running.simulator.journal.entries.filter { $0.host == "127.0.0.2" && $0.authorization }.first?.method == "PROPFIND")
        }
    }

    /// An approved redirect is not consent to be identified there: the client certificate goes
    /// to the new origin, and is kept for the account, only when the user agrees to that too.
    @Test(arguments: [false, true]) func aClientCertificateFollowsARedirectOnlyWhenTheUserAgrees(agrees: Bool) async throws {
        try await withRunningSimulator(agrees ? "mtls-redirect-credentials-approved" : "mtls-redirect-approved") { (running) async throws in
            let user = ScriptedUser(approvesRedirects: true, presentsCredentials: agrees)
            let identity = try ClientIdentity.read(
                Array(try Data(contentsOf: URL(fileURLWithPath: TestPaths.testcert("client-alice.pem")))),
                key: Array(try Data(contentsOf: URL(fileURLWithPath: TestPaths.testcert("client-alice.key")))))
            let named = running.url(path: "")
            let account = try await setup {
                $0.method = .basicAuth
                $0.clientIdentity = identity
                $0.credentialsOrigin = try? Endpoint(url: named)
            }.add(server: named, user: "alice", interaction: user)
            defer {
                _ = try? keyring.remove(try SecretKey(account: account.secretAccount, kind: .password))
                _ = try? keyring.remove(try SecretKey(account: account.secretAccount, kind: .clientKey))
            }
            #expect(account.server == running.url(host: 2, path: ""))
            #expect(user.asked == ["review: trusted", "redirect?", "credentials?", "review: trusted", "password?"], "\(user.asked)")
            let presented = running.simulator.journal.connections.filter { $0.clientCertificate != nil }
            #expect(agrees ? !presented.isEmpty : presented.isEmpty, "\(presented.map(\.host))")
            #expect(presented.allSatisfy { $0.host == "127.0.0.2" })
            #expect((account.clientCertificatePEM != nil) == agrees, "kept only for an origin it was agreed for")
            #expect((try await keyring.secret(for: SecretKey(account: account.secretAccount, kind: .clientKey)) != nil) == agrees)
        }
    }

    /// With the server locked by the administrator, even a redirect the user would approve
    /// cannot move the account: refused before the question, nothing sent to the other host.
    @Test func aLockedServerIsNotMovedByARedirect() async throws {
        try await withRunningSimulator("redirect-cross-host-302") { (running) async throws in
            let user = ScriptedUser(approvesRedirects: true)
            let locked = running.url(path: "")
            await expectFailure(.policy) {
                try await setup {
                    $0.urlEditable = false
                    $0.defaultURL = locked
                }.add(server: locked, user: "alice", interaction: user)
            }
            #expect(!user.asked.contains("redirect?") && !user.asked.contains("password?"))
            #expect(running.simulator.journal.entries.allSatisfy { $0.host == "127.0.0.1" && !$0.authorization })
        }
    }

    /// An organisation's OAuth2 client registered on another server is not used here: OAuth2 is
    /// passed over for Basic, and nothing goes to the OAuth2 endpoints (no secret, no code).
    @Test func anOAuth2ClientOfAnotherServerIsNotUsed() async throws {
        try await withRunningSimulator("oauth2-client-of-another-server") { (running) async throws in
            let user = ScriptedUser()
            let account = try await setup {
                $0.oauth2ClientID = "corp-vigil"
                $0.oauth2ClientSecret = Secret("CORP-SECRET-not-for-this-server")
                $0.oauth2ClientServer = "https://cloud.example.org"
                $0.allowedMethods = [.oauth2, .basicAuth]
                $0.preferredMethods = [.oauth2, .basicAuth]
            }.add(server: running.url(path: ""), user: "alice", interaction: user)
            defer { _ = try? keyring.remove(try SecretKey(account: account.secretAccount, kind: .password)) }
            #expect(account.method == AuthenticationMethodIdentifier.basicAuth.rawValue && account.clientID == nil)
            #expect(!running.simulator.journal.entries.contains { $0.path.contains("oauth2") }, "\(running.simulator.journal.entries.map(\.path))")
        }
    }

    @Test(arguments: ["redirect-chain-30", "redirect-loop", "redirect-downgrade"])
    func endlessOrDowngradingRedirectsStop(scenario: String) async throws {
        try await withRunningSimulator(scenario) { (running) async throws in
            let user = ScriptedUser(approvesRedirects: true)
            await expectFailure(.redirected) { try await setup().add(server: running.url(path: ""), user: "alice", interaction: user) }
            #expect(!user.asked.contains("password?"))
            #expect(user.asked.filter { $0 == "redirect?" }.count <= 10)
            if scenario == "redirect-downgrade" { #expect(!user.asked.contains("redirect?"), "a downgrade is never offered") }
            #expect(running.simulator.journal.entries.allSatisfy { !$0.authorization })
        }
    }

    @Test func methodsTheSettingsForbidStopBeforeThePassword() async throws {
        try await withRunningSimulator("basic-only") { (basic) async throws in
            let user = ScriptedUser()
            await expectFailure(.noUsableMethod) {
                try await setup { $0.allowedMethods = [.oauth2] }.add(server: basic.url(path: ""), user: "alice", interaction: user)
            }
            #expect(!user.asked.contains("password?"))
            #expect(basic.simulator.journal.entries.allSatisfy { !$0.authorization })
        }
    }

    /// A provider that names users by an opaque `sub` (no preferred_username): the server says
    /// whose the token is; the account is alice's, with the provider's issuer and sub kept as the
    /// identity later logins must match. A provider that logs in bob for alice adds nothing.
    @Test func theUserIsWhoTheServerSays() async throws {
        try await withRunningSimulator("oidc-opaque-subject") { (running) async throws in
            let account = try await setup { $0.browserTimeout = .seconds(20) }.add(server: running.url(path: ""), user: "alice", interaction: ScriptedUser())
            defer {
                for kind in [SecretKey.Kind.accessToken, .refreshToken] { _ = try? keyring.remove(try SecretKey(account: account.secretAccount, kind: kind)) }
            }
            #expect(account.user == "alice" && account.subject == "u-1" && account.issuer == running.url(path: ""))
            #expect(try await Accounts(database: database).list().first?.subject == "u-1", "kept in the database")
        }
        try await withRunningSimulator("oidc-another-user") { (running) async throws in
            await expectFailure(.responseRejected) {
                try await setup { $0.browserTimeout = .seconds(20) }.add(server: running.url(path: ""), user: "alice", interaction: ScriptedUser())
            }
            #expect(try await Accounts(database: database).list().count == 1, "only the first scenario's account")
            #expect(!running.simulator.journal.entries.contains { $0.method == "PROPFIND" && $0.authorization }, "bob's token never reached the files")
        }
    }

    /// A login provider on its own host: found by WebFinger, its certificate reviewed like the
    /// server's, its own discovery document read; the account's tokens come from it.
    @Test func aLoginProviderOnAnotherHost() async throws {
        try await withRunningSimulator("oidc-provider-on-another-host") { (running) async throws in
            let user = ScriptedUser()
            let account = try await setup { $0.browserTimeout = .seconds(20) }.add(server: running.url(path: ""), user: "alice", interaction: user)
            defer {
                for kind in [SecretKey.Kind.accessToken, .refreshToken] { _ = try? keyring.remove(try SecretKey(account: account.secretAccount, kind: kind)) }
            }
            let provider = running.url(host: 2, path: "")
            #expect(account.method == "com.owncloud.openid-connect" && account.issuer == provider)
            #expect(account.tokenEndpoint?.hasPrefix(provider) == true && account.server == running.url(path: ""))
            #expect(user.asked.filter { $0.hasPrefix("review") }.count == 2, "the server's and the provider's certificates: \(user.asked)")
            let atProvider = running.simulator.journal.entries.filter { $0.host == "127.0.0.2" }
            #expect(atProvider.allSatisfy { $0.path.hasPrefix("/.well-known/") || $0.path.hasPrefix("/index.php/apps/oauth2/") }, "no files at the provider")
            #expect(running.simulator.journal.entries.contains { $0.host == "127.0.0.1" && $0.path.hasPrefix("/.well-known/webfinger") })
        }
    }

    /// A client configured for another server, and a provider that cannot register one: the
    /// error says a client is configured, for which server, and which setting binds it (not
    /// "set oa2-client-id", which is set). Nothing reaches the authorization endpoint.
    @Test func aClientBoundToAnotherServerIsNamedInTheError() async throws {
        try await withRunningSimulator("bearer-only") { (running) async throws in
            let user = ScriptedUser()
            do {
                _ = try await setup {
                    $0.oauth2ClientID = "corp-vigil"
                    $0.oauth2ClientServer = "https://cloud.example.org"
                    $0.oidcRegisterClient = false
                }.add(server: running.url(path: ""), user: "alice", interaction: user)
                Issue.record("the account was added")
            } catch let error as AccountSetupError {
                #expect(error.code == .configuration)
                let text = error.reason
                #expect(
                    text.contains("bound to https://cloud.example.org by authentication-oauth2.oa2-client-server")
                        && text.contains("authentication-oidc.register-client") && !text.contains("set authentication-oauth2.oa2-client-id to"), "\(text)")
            }
            #expect(!user.asked.contains("browser") && !running.simulator.journal.entries.contains { $0.path.contains("authorize") })
        }
    }

    /// A Login Flow v2 that completes but whose answer cannot be kept (the server names itself
    /// over http, or the browser logged in another user): refused, nothing kept, and the app
    /// password just issued revoked at the server that issued it.
    @Test(arguments: [("login-flow-v2-http-server", "alice", "overwriteprotocol"), ("login-flow-v2", "bob", "--user alice")])
    func aLoginFlowAnswerThatCannotBeKeptIsRevoked(scenario: String, user: String, says: String) async throws {
        try await withRunningSimulator(scenario) { (running) async throws in
            let scripted = ScriptedUser()
            let database = self.database
            do {
                _ = try await setup { $0.browserTimeout = .seconds(20) }.add(server: running.url(path: ""), user: user, interaction: scripted)
                Issue.record("the account was added")
            } catch let error as AccountSetupError {
                #expect(error.code == .responseRejected && error.reason.contains(says), "\(error)")
            }
            #expect(running.simulator.responder.loginFlow?.revokedCount == 1, "the app password was revoked")
            #expect(try await Accounts(database: database).list().isEmpty)
            #expect(!running.simulator.journal.entries.contains { $0.scheme == "http" }, "nothing over plain HTTP")
        }
    }

    @Test func openIDConnectIsTheDefaultAndKeepsBothTokensInTheKeyring() async throws {
        try await withRunningSimulator("bearer-only") { (running) async throws in
            let user = ScriptedUser()
            let account = try await setup { $0.browserTimeout = .seconds(20) }.add(server: running.url(path: ""), user: "alice", interaction: user)
            let access = try SecretKey(account: account.secretAccount, kind: .accessToken)
            let refresh = try SecretKey(account: account.secretAccount, kind: .refreshToken)
            defer {
                _ = try? keyring.remove(access)
                _ = try? keyring.remove(refresh)
            }
            #expect(account.method == "com.owncloud.openid-connect")
            #expect(user.asked == ["review: trusted", "browser"], "no password is asked")
            #expect(try await keyring.secret(for: access) != nil)
            #expect(try await keyring.secret(for: refresh) != nil)
            let entries = running.simulator.journal.entries
            #expect(entries.contains { $0.method == "POST" && $0.path.hasSuffix("/register") }, "a client registered for the login (RFC 7591)")
            let authorized = entries.filter(\.authorization)
            #expect(
                authorized.map(\.method) == ["GET", "GET", "PROPFIND", "GET", "GET", "GET"] && authorized.first?.path.hasSuffix("/userinfo") == true
                    && authorized[1].path.hasSuffix("/cloud/user"),
                "userinfo, the server's user endpoint (whose token it is) and the WebDAV check carry the token, then the capabilities and user endpoints: \(authorized.map(\.path))"
            )
        }
    }

    @Test(arguments: [
        "oidc-alg-none", "oidc-bad-nonce", "oidc-expired-id-token", "oidc-issuer-mismatch", "oidc-jwks-over-http", "oidc-missing-id-token",
        "oidc-mix-up", "oidc-no-s256", "oidc-unknown-kid", "oidc-wrong-audience", "oidc-wrong-issuer",
    ])
    func openIDConnectFaultsAreRefusedAndNothingIsKept(scenario: String) async throws {
        try await withRunningSimulator(scenario) { (running) async throws in
            await expectFailure(.responseRejected) {
                try await setup { $0.browserTimeout = .seconds(20) }.add(server: running.url(path: ""), user: "alice", interaction: ScriptedUser())
            }
            #expect(try await Accounts(database: database).list().isEmpty)
            #expect(try await keyring.accounts(kind: nil).allSatisfy { !$0.contains(running.url(path: "")) })
            #expect(running.simulator.journal.entries.allSatisfy { !($0.authorization && $0.method == "PROPFIND") }, "no token reached WebDAV")
        }
    }

    @Test func oauth2ThroughTheBrowserKeepsBothTokensInTheKeyring() async throws {
        try await withRunningSimulator("bearer-only") { (running) async throws in
            let user = ScriptedUser()
            let configured = try setup {
                $0.method = .oauth2
                $0.oauth2ClientID = OIDCProvider.staticClientID
                $0.oauth2ClientServer = running.url(path: "")
                $0.browserTimeout = .seconds(20)
            }
            let account = try await configured.add(server: running.url(path: ""), user: "alice", interaction: user)
            let access = try SecretKey(account: account.secretAccount, kind: .accessToken)
            let refresh = try SecretKey(account: account.secretAccount, kind: .refreshToken)
            defer {
                _ = try? keyring.remove(access)
                _ = try? keyring.remove(refresh)
            }
            #expect(account.method == "com.owncloud.oauth2")
            #expect(user.asked == ["review: trusted", "browser"], "no password is asked for OAuth2")
            #expect(try await keyring.secret(for: access) != nil)
            #expect(try await keyring.secret(for: refresh) != nil)
            let authorized = running.simulator.journal.entries.filter(\.authorization)
            #expect(
                authorized.map(\.method) == ["GET", "PROPFIND", "GET", "GET", "GET"] && authorized.first?.path.hasSuffix("/cloud/user") == true,
                "whose token it is (the server's user endpoint), the check (a listing and a download), then the capabilities and user endpoints")

            await expectFailure(.configuration) {
                try await setup { $0.method = .oauth2 }.add(server: running.url(path: ""), user: "bob", interaction: ScriptedUser())
            }
        }
    }

    @Test func maintenanceAndPlainHTTP() async throws {
        try await withRunningSimulator("maintenance") { (running) async throws in
            await expectFailure(.maintenance) { try await setup().add(server: running.url(path: ""), user: "alice", interaction: ScriptedUser()) }
            await expectFailure(.invalidURL) {
                try await setup().add(server: running.url(scheme: "http", path: ""), user: "alice", interaction: ScriptedUser())
            }
        }
    }
}
