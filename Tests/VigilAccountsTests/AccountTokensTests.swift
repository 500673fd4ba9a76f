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

/// Tokens over time against the simulator's OpenID Connect provider, over real TLS: refresh ahead
/// of expiry with rotation, once after a 401, a reused (rotated-out) refresh token refused into
/// needs-login, an outage that keeps the tokens, two refreshes at once that hit the provider once,
/// and revocation on removal.
@Suite("Account tokens over time, live", .serialized, .timeLimit(.minutes(3)))
struct AccountTokensTests {
    struct Fixture {
        let running: RunningSimulator
        let database: VigilDatabase
        let secrets = MemorySecretStore()
        let lockDirectory: String
        var account: Account
        /// `oa2-expiration-override-seconds`, for setup and every check alike.
        var lifetime: Int?

        var accounts: Accounts { Accounts(database: database) }
        func key(_ kind: SecretKey.Kind) throws -> SecretKey { try SecretKey(account: account.secretAccount, kind: kind) }
        func secret(_ kind: SecretKey.Kind) throws -> String? { try secrets.secret(for: key(kind))?.withValue { $0 } }
        var current: Account { get throws { try accounts.list().first { $0.id == account.id } ?? account } }

        func options(_ configure: (inout AccountSetup.Options) -> Void = { _ in }) -> AccountSetup.Options {
            var options = AccountSetup.Options()
            options.timeout = .seconds(10)
            options.browserTimeout = .seconds(20)
            options.tokenLifetimeOverride = lifetime
            configure(&options)
            return options
        }

        func check(_ configure: (inout AccountSetup.Options) -> Void = { _ in }) throws -> AccountCheck {
            var check = AccountCheck(
                evaluator: try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])), approvals: CertificateApprovals(database: database),
                accounts: accounts, options: options(configure), renewalRule: nil, extendedValidationRule: nil)
            check.lockDirectory = lockDirectory
            return check
        }

        /// Token requests of one grant type the provider saw.
        func tokenRequests() -> Int {
            running.simulator.journal.entries.filter { $0.method == "POST" && $0.path.hasSuffix("/api/v1/token") }.count
        }
    }

    /// An OpenID Connect account set up through the browser stand-in; its access token treated as
    /// living `lifetime` seconds.
    func fixture(_ scenario: String = "oidc", lifetime: Int? = nil) async throws -> Fixture {
        let running = try await RunningSimulator(scenario)
        let directory = try TestPaths.temporaryDirectory()
        let database = try VigilDatabase(path: directory.appendingPathComponent("vigil.sqlite").path)
        var fixture = Fixture(
            running: running, database: database, lockDirectory: directory.appendingPathComponent("locks").path,
            account: Account(server: "", user: "", method: ""), lifetime: lifetime)
        let setup = AccountSetup(
            evaluator: try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])), approvals: CertificateApprovals(database: database),
            accounts: fixture.accounts, secrets: fixture.secrets, options: fixture.options())
        fixture.account = try await setup.add(server: running.url(path: ""), user: "alice", interaction: ScriptedUser())
        return fixture
    }

    /// Runs `body` with a fixture, and stops its simulator when `body` ends, by returning or by
    /// throwing (awaited, unlike a `defer { Task { ... } }`).
    func withFixture(_ scenario: String = "oidc", lifetime: Int? = nil, _ body: (Fixture) async throws -> Void) async throws {
        let made = try await fixture(scenario, lifetime: lifetime)
        do {
            try await body(made)
        } catch {
            await made.running.stop()
            throw error
        }
        await made.running.stop()
    }

    @Test func anExpiringTokenIsRefreshedAndTheRefreshTokenRotated() async throws {
        try await withFixture(lifetime: 60) { fixture in  // under the 120 s margin: due at once
            #expect(fixture.account.method == "com.owncloud.openid-connect")
            #expect(fixture.account.clientID?.hasPrefix("dyn-") == true && fixture.account.tokenEndpoint != nil && fixture.account.revocationEndpoint != nil)
            let oldAccess = try fixture.secret(.accessToken), oldRefresh = try fixture.secret(.refreshToken)
            let before = fixture.tokenRequests()
            let report = try await fixture.check().connect(fixture.account, secrets: fixture.secrets, interaction: nil)
            #expect(report.isWorking)
            #expect(fixture.tokenRequests() == before + 1, "one refresh")
            #expect(try fixture.secret(.accessToken) != oldAccess && fixture.secret(.refreshToken) != oldRefresh, "both replaced (rotation)")
            #expect(try await fixture.accounts.database.auditTrail().contains { $0.kind == .accountTokensRefreshed })
            #expect(try fixture.current.needsLogin == false)
        }
    }

    @Test func aFreshTokenIsNotRefreshedButA401RefreshesOnce() async throws {
        try await withFixture { fixture in
            let before = fixture.tokenRequests()
            #expect(try await fixture.check().connect(fixture.account, secrets: fixture.secrets, interaction: nil).isWorking)
            #expect(fixture.tokenRequests() == before, "an hour left: no refresh")
            // The server no longer takes the stored access token: one refresh, one retry.
            try await fixture.secrets.store(Secret("revoked-or-forged-token"), for: fixture.key(.accessToken))
            #expect(try await fixture.check().connect(fixture.account, secrets: fixture.secrets, interaction: nil).isWorking)
            #expect(fixture.tokenRequests() == before + 1)
        }
    }

    @Test func aRefusedRefreshMeansLogInAgainAndAnOutageKeepsTheTokens() async throws {
        try await withFixture(lifetime: 60) { fixture in
            let rotatedOut = try #require(try fixture.secret(.refreshToken))
            _ = try await fixture.check().connect(fixture.account, secrets: fixture.secrets, interaction: nil)  // rotates
            // An outage: the token endpoint does not answer. Nothing is lost, nothing marked.
            var unreachable = try fixture.current
            unreachable.tokenEndpoint = "https://127.0.0.1:1/token"
            try await fixture.accounts.update(unreachable)
            let kept = try fixture.secret(.refreshToken)
            await #expect(throws: (any Error).self) { _ = try await fixture.check().connect(unreachable, secrets: fixture.secrets, interaction: nil) }
            #expect(try fixture.secret(.refreshToken) == kept && fixture.current.needsLogin == false)
            // The rotated-out refresh token is refused: needs-login, and no loop.
            var reused = try fixture.current
            reused.tokenEndpoint = fixture.account.tokenEndpoint
            try await fixture.accounts.update(reused)
            try await fixture.secrets.store(Secret(rotatedOut), for: fixture.key(.refreshToken))
            do {
                _ = try await fixture.check().connect(reused, secrets: fixture.secrets, interaction: nil)
                Issue.record("a reused refresh token was accepted")
            } catch let error as AccountSetupError {
                #expect(error.code == .loginExpired && error.reason.contains("vigil account login \(fixture.account.id)"), "\(error)")
            }
            #expect(try fixture.current.needsLogin)
            let requests = fixture.tokenRequests()
            _ = try? await fixture.check().connect(try fixture.current, secrets: fixture.secrets, interaction: nil)
            #expect(fixture.tokenRequests() == requests, "a needs-login account does not try again")
        }
    }

    /// A token endpoint that reads the refresh request whole and drops the connection without a
    /// byte of answer: the refresh token may be spent (a provider with reuse detection revokes the
    /// whole family when it sees it again). It is never presented again: the check says "no
    /// answer" and that a new login is needed, with the command; the next check sends nothing.
    @Test func aRefreshTokenThatMayHaveReachedTheProviderIsNeverPresentedTwice() async throws {
        try await withFixture(lifetime: 60) { fixture in
            let dropping = try DroppingTLSServer()
            defer { dropping.stop() }
            var account = try fixture.current
            account.tokenEndpoint = dropping.url + "/token"
            try await fixture.accounts.update(account)
            do {
                _ = try await fixture.check().connect(account, secrets: fixture.secrets, interaction: nil)
                Issue.record("a refresh without an answer succeeded")
            } catch let error as AccountSetupError {
                #expect(error.code == .loginExpired, "\(error)")
                #expect(error.reason.contains("no answer") && !error.reason.contains("handshake"), "\(error.reason)")
                #expect(error.reason.contains("vigil account login \(fixture.account.id)"), "\(error.reason)")
            }
            #expect(dropping.requests == 1, "the refresh token was sent once")
            #expect(try fixture.current.needsLogin, "the account needs a new login now, not at the next refresh")
            _ = try? await fixture.check().connect(try fixture.current, secrets: fixture.secrets, interaction: nil)
            #expect(dropping.requests == 1, "a refresh token that may be spent is never presented twice")
        }
    }

    /// A token endpoint that is not there (no handshake): no byte of the request left, the refresh
    /// token stays good and the next check presents it.
    @Test func aRefreshThatNeverLeftKeepsItsToken() async throws {
        try await withFixture(lifetime: 60) { fixture in
            let silent = closedLoopbackPort()
            var account = try fixture.current
            let endpoint = account.tokenEndpoint
            account.tokenEndpoint = "https://127.0.0.1:\(silent)/token"
            try await fixture.accounts.update(account)
            let kept = try fixture.secret(.refreshToken)
            await #expect(throws: (any Error).self) { _ = try await fixture.check().connect(account, secrets: fixture.secrets, interaction: nil) }
            #expect(try fixture.secret(.refreshToken) == kept && fixture.current.needsLogin == false && fixture.current.refreshStartedAt == nil)
            account = try fixture.current
            account.tokenEndpoint = endpoint
            try await fixture.accounts.update(account)
            _ = try await fixture.check().connect(account, secrets: fixture.secrets, interaction: nil)
            #expect(try fixture.secret(.refreshToken) != kept, "refreshed with the kept token")
        }
    }

    /// A keyring whose first write of one kind of secret fails: a refresh cut short at that
    /// point, as a process killed there would leave it.
    final class KeyringFailingOnce: SecretStore, @unchecked Sendable {  // `failed` guarded by `lock`
        let inner: MemorySecretStore
        let kind: SecretKey.Kind
        private let lock = NSLock()
        private var failed = false
        init(_ inner: MemorySecretStore, on kind: SecretKey.Kind) {
            self.inner = inner
            self.kind = kind
        }

        func store(_ secret: Secret, for key: SecretKey) throws {
            let fail = lock.withLock {
                guard key.kind == kind, !failed else { return false }
                failed = true
                return true
            }
            if fail { throw SecretStoreError(.unavailable, "the keyring went away") }
            try inner.store(secret, for: key)
        }
        func secret(for key: SecretKey) throws -> Secret? { try inner.secret(for: key) }
        func remove(_ key: SecretKey) throws -> Bool { try inner.remove(key) }
        func accounts(kind: SecretKey.Kind?) throws -> [String] { try inner.accounts(kind: kind) }
    }

    /// The rotated refresh token is kept before anything else: a refresh cut short after it leaves
    /// an account the next check refreshes again, with no new login.
    @Test func aRefreshCutShortAfterTheRotatedRefreshTokenWorksNextTime() async throws {
        try await withFixture(lifetime: 60) { fixture in
            let oldRefresh = try fixture.secret(.refreshToken)
            let before = fixture.tokenRequests()
            // Reported as a failed check (or thrown): either way the refresh did not complete.
            let cut = try? await fixture.check().connect(fixture.account, secrets: KeyringFailingOnce(fixture.secrets, on: .accessToken), interaction: nil)
            #expect(cut?.isWorking != true)
            #expect(fixture.tokenRequests() == before + 1)
            #expect(try fixture.secret(.refreshToken) != oldRefresh, "the rotated refresh token was kept first")
            let report = try await fixture.check().connect(try fixture.current, secrets: fixture.secrets, interaction: nil)
            #expect(report.isWorking && fixture.tokenRequests() == before + 2, "refreshed again with the kept token")
            #expect(try fixture.current.needsLogin == false)
        }
    }

    /// Killed after the provider rotated the refresh token and before the new one was kept: the
    /// keyring still holds the spent one, and it is never presented again (a provider with reuse
    /// detection would revoke every token). The next check asks for a login (exit 75), sends
    /// nothing, and deletes nothing.
    @Test func aRefreshKilledBeforeTheKeyringWriteNeverReplaysTheSpentToken() async throws {
        try await withFixture(lifetime: 60) { fixture in
            let spent = try fixture.secret(.refreshToken)
            let before = fixture.tokenRequests()
            _ = try? await fixture.check().connect(fixture.account, secrets: KeyringFailingOnce(fixture.secrets, on: .refreshToken), interaction: nil)
            #expect(try fixture.tokenRequests() == before + 1 && fixture.secret(.refreshToken) == spent, "the answer was lost; the spent token is left")
            #expect(try fixture.current.refreshStartedAt != nil)
            do {
                _ = try await fixture.check().connect(try fixture.current, secrets: fixture.secrets, interaction: nil)
                Issue.record("the check went on")
            } catch let error as AccountSetupError {
                #expect(error.code == .loginExpired && error.reason.contains("interrupted"), "\(error)")
            }
            #expect(fixture.tokenRequests() == before + 1, "the spent refresh token was not presented again")
            #expect(fixture.running.simulator.responder.oidc.refreshTokenReuses == 0)
            #expect(try fixture.secret(.refreshToken) == spent && fixture.current.needsLogin, "nothing deleted; the account needs a login")
        }
    }

    @Test func twoRefreshesAtOnceReachTheProviderOnce() async throws {
        try await withFixture(lifetime: 60) { fixture in
            let before = fixture.tokenRequests()
            let check = try fixture.check()
            async let first = check.connect(fixture.account, secrets: fixture.secrets, interaction: nil)
            async let second = check.connect(fixture.account, secrets: fixture.secrets, interaction: nil)
            let (a, b) = try await (first, second)
            #expect(a.isWorking && b.isWorking)
            #expect(fixture.tokenRequests() == before + 1, "the second waited for the lock and used the first's tokens")
        }
    }

    @Test func removalRevokesTheTokensAtTheServer() async throws {
        try await withFixture { fixture in
            let refresh = try #require(try fixture.secret(.refreshToken)), access = try #require(try fixture.secret(.accessToken))
            let result = try await AccountRemoval(accounts: fixture.accounts, secrets: fixture.secrets).remove(
                id: fixture.account.id, revokingThrough: try fixture.check())
            #expect(result.revoked == [.refreshToken, .accessToken] && result.revocationProblem == nil)
            #expect(fixture.running.simulator.responder.oidc.wasRevoked(refresh) && fixture.running.simulator.responder.oidc.wasRevoked(access))
            #expect(try await fixture.secrets.accounts(kind: nil).isEmpty)
            #expect(try await fixture.accounts.list().isEmpty)
            #expect(try await fixture.accounts.database.auditTrail().contains { $0.kind == .accountTokensRevoked })
        }
    }
}

/// A token endpoint's `expires_in` is a number from the server: one below zero is an expired
/// token, one over ten years ten years; never a date the store cannot hold.
@Suite("Token lifetimes from the server")
struct TokenLifetimeTests {
    @Test func absurdLifetimesAreBounded() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(AccountTokens.expiry(expiresIn: 3600, override: nil, from: start) == start.addingTimeInterval(3600))
        #expect(AccountTokens.expiry(expiresIn: -100_000_000_000, override: nil, from: start) == start)
        #expect(AccountTokens.expiry(expiresIn: 8_000_000_000_000_000, override: nil, from: start) == start.addingTimeInterval(10 * 366 * 24 * 3600))
        #expect(AccountTokens.expiry(expiresIn: nil, override: nil, from: start) == nil)
        #expect(AccountTokens.expiry(expiresIn: 3600, override: 60, from: start) == start.addingTimeInterval(60))
    }
}

/// The approvals an account needed go with its last user: its server's and its login provider's
/// on another host, unless another account still connects there.
@Suite("Approvals left over")
struct ApprovalsLeftOverTests {
    @Test func theProvidersApprovalGoesWithItsLastAccount() async throws {
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        let accounts = Accounts(database: database), approvals = CertificateApprovals(database: database)
        let certificate = try #require(try Certificate.load(path: TestPaths.testcert("self-signed.pem")).first)
        let provider = "https://login.example.test/token"
        let one = Account(server: "https://cloud.example.test", user: "alice", method: "com.owncloud.openid-connect", tokenEndpoint: provider)
        let two = Account(server: "https://files.example.test", user: "bob", method: "com.owncloud.openid-connect", tokenEndpoint: provider)
        try await accounts.add(one)
        try await accounts.add(two)
        for host in ["cloud.example.test", "files.example.test", "login.example.test"] { _ = try await approvals.approve(certificate, host: host, port: 443) }
        let removal = AccountRemoval(accounts: accounts, secrets: MemorySecretStore())
        _ = try await removal.remove(id: one.id)
        let first = try await removal.revokeApprovalsLeftOver(by: one, approvals: approvals, keep: false)
        #expect(first.map(\.host) == ["cloud.example.test"], "bob still logs in at the provider")
        _ = try await removal.remove(id: two.id)
        let second = try await removal.revokeApprovalsLeftOver(by: two, approvals: approvals, keep: false)
        #expect(Set(second.map(\.host)) == ["files.example.test", "login.example.test"])
        #expect(try await approvals.list().isEmpty)
        #expect(try await approvals.list(includingRevoked: true).count == 3)
    }
}

/// `certificates audit --check` and the accounts' client certificates.
@Suite("Client certificates in the audit")
struct ClientCertificateAuditTests {
    @Test func expiredAndExpiringClientCertificatesAreProblems() async throws {
        let directory = try TestPaths.temporaryDirectory()
        try CommandRunner.openssl(["req", "-new", "-key", TestPaths.testcert("client-alice.key"), "-subj", "/CN=alice", "-out", "soon.csr"], in: directory)
        try CommandRunner.openssl(
            [
                "x509", "-req", "-in", "soon.csr", "-CA", TestPaths.testcert("client-ca.pem"), "-CAkey", TestPaths.testcert("client-ca.key"), "-days", "10",
                "-set_serial", "7", "-out", "soon.pem",
            ], in: directory)
        let database = try VigilDatabase(path: directory.appendingPathComponent("vigil.sqlite").path)
        let accounts = Accounts(database: database)
        var soon = Account(server: "https://soon.example.test", user: "alice", method: "com.owncloud.basicauth")
        soon.clientCertificatePEM = try String(contentsOf: directory.appendingPathComponent("soon.pem"), encoding: .utf8)
        var expired = Account(server: "https://old.example.test", user: "alice", method: "com.owncloud.basicauth")
        expired.clientCertificatePEM = try String(contentsOfFile: TestPaths.testcert("client-expired.pem"), encoding: .utf8)
        let fine = Account(server: "https://fine.example.test", user: "alice", method: "com.owncloud.basicauth")
        for account in [soon, expired, fine] { try await accounts.add(account) }
        let audit = ApprovalAudit(approvals: CertificateApprovals(database: database), accounts: accounts, requirements: ConnectionRequirements())
        let problems = try await audit.check()
        #expect(
            Set(problems.map { "\($0.target) \($0.code)" }) == [
                "https://soon.example.test client-certificate-expires-soon", "https://old.example.test client-certificate-expired",
            ])
        var quiet = audit
        quiet.clientCertificateWarningDays = 5
        #expect(try await quiet.check().map(\.code) == ["client-certificate-expired"])
    }
}
