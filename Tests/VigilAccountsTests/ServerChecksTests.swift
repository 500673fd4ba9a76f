import Foundation
import Testing
import VigilAuth
import VigilCertificates
import VigilHTTP
import VigilSecrets
import VigilSimulator
import VigilStore
import VigilTestSupport

@testable import VigilAccounts

/// What account setup checks of a real server before and around the login: a URL with a
/// password, an old version, a load balancer that answers 404 for a while, a cluster that learns
/// a new token late.
@Suite("Server checks during setup, live", .timeLimit(.minutes(3)))
struct ServerChecksTests {
    /// The user of these tests; its progress (the retry's "trying again") moves the simulator's clock.
    final class User: AccountSetupInteraction, @unchecked Sendable {
        let clock: ManualSimulatorClock?
        init(clock: ManualSimulatorClock? = nil) { self.clock = clock }
        func review(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async {}
        func approveCertificate(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async -> Bool { false }
        func approveRedirect(_ redirect: Redirect, from: String) async -> Bool { false }
        func password(user: String, server: String) async -> Secret? { Secret("alice-test-password") }
        func openBrowser(_ url: String) async {}
        func progress(_ message: String) async { if message.contains("trying again") { clock?.advance(seconds: 3) } }
    }

    func setup(_ configure: (inout AccountSetup.Options) -> Void = { _ in }) throws -> AccountSetup {
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        var options = AccountSetup.Options()
        options.timeout = .seconds(10)
        options.method = .basicAuth
        configure(&options)
        return AccountSetup(
            evaluator: try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])), approvals: CertificateApprovals(database: database),
            accounts: Accounts(database: database), secrets: MemorySecretStore(), options: options)
    }

    func failure(_ body: () async throws -> Account) async -> AccountSetupError? {
        do {
            _ = try await body()
            return nil
        } catch let error as AccountSetupError { return error } catch { return nil }
    }

    @Test func aURLWithAPasswordIsRefusedBeforeAnyRequestAndNotEchoed() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let url = running.url(path: "").replacingOccurrences(of: "https://", with: "https://alice:s3cret-in-url@")
            let error = await failure { try await setup().add(server: url, user: "alice", interaction: User()) }
            #expect(error?.code == .invalidURL)
            #expect(error.map { !$0.reason.contains("s3cret-in-url") } == true, "\(String(describing: error))")
            #expect(running.simulator.journal.entries.isEmpty)
            // A password no URL parser accepts ('#', '/', '?') is caught and not echoed either.
            let odd = running.url(path: "").replacingOccurrences(of: "https://", with: "https://alice:p#ss/w?rd@")
            let oddError = await failure { try await setup().add(server: odd, user: "alice", interaction: User()) }
            #expect(
                oddError?.code == .invalidURL && oddError.map { !$0.reason.contains("p#ss") && !$0.reason.contains("w?rd") } == true,
                "\(String(describing: oddError))")
        }
    }

    @Test func versionsCompareNumberByNumber() {
        #expect(AccountSetup.version("8.2.11.3", isBelow: "10.0"))
        #expect(!AccountSetup.version("10.15.0.2", isBelow: "10.0"))
        #expect(!AccountSetup.version("10.0", isBelow: "10.0.0"))
        #expect(AccountSetup.version("9.99", isBelow: "10"))
        #expect(!AccountSetup.version("unknown", isBelow: "10.0"), "text that is not numbers is never below")
        #expect(AccountSetup.version("8.2-beta", isBelow: "10.0"), "a component's leading digits count")
    }

    @Test func anOldServerIsReportedNotAdded() async throws {
        try await withRunningSimulator("status-old-version") { (running) async throws in
            let error = await failure { try await setup().add(server: running.url(path: ""), user: "alice", interaction: User()) }
            #expect(error?.code == .notACloudServer && error?.reason.contains("8.2.11.3") == true, "\(String(describing: error))")
            let lower = try setup { $0.minimumServerVersion = "8.0" }
            _ = try await lower.add(server: running.url(path: ""), user: "alice", interaction: User())
        }
    }

    @Test func aFewSecondsOf404AreWaitedOutAndOnly404IsReported() async throws {
        // The simulator's window is on its injected clock: each retry's pause moves it 3 s on.
        let quick = try setup { $0.retryDelays = [.milliseconds(10), .milliseconds(10), .milliseconds(10)] }
        try await withRunningSimulator("five-seconds-of-404") { (window) async throws in
            let account = try await quick.add(server: window.url(path: ""), user: "alice", interaction: User(clock: window.clock))
            #expect(account.user == "alice")
            #expect(window.simulator.journal.entries.filter { $0.path == "/status.php" }.count == 3, "two 404s, then the answer")
        }
        try await withRunningSimulator("only-404") { (never) async throws in
            let error = await failure { try await quick.add(server: never.url(path: ""), user: "alice", interaction: User()) }
            #expect(
                error?.code == .notACloudServer && error?.reason.contains("404 Not Found") == true && error?.reason.contains("4 times") == true,
                "\(String(describing: error))")
        }
    }
}

extension ServerChecksTests {
    /// The seeds' recovering-apm: for 30 s (the simulator's clock, which stands still here) the APM
    /// sends clients to a bogus endpoint that sets no cookie. Setup waits out its retries, says the
    /// server is unavailable for now without asking the user anything or sending a credential, and
    /// the same setup logs in once the APM recovers.
    @Test func anAPMThatLetsNobodyThroughIsUnavailableForNowAndRecovers() async throws {
        try await withRunningSimulator("recovering-apm") { (running) async throws in
            let quick = try setup { $0.retryDelays = [.milliseconds(10), .milliseconds(10)] }
            let error = await failure { try await quick.add(server: running.url(path: ""), user: "alice", interaction: User()) }
            #expect(error?.code == .unavailable && error?.reason.contains("/apm/bogus") == true, "\(String(describing: error))")
            #expect(running.simulator.journal.entries.filter { $0.path == "/status.php" }.count == 3, "the first try and two more")
            #expect(!running.simulator.journal.entries.contains { $0.authorization }, "nothing was sent with a credential")

            running.clock.advance(seconds: 31)
            let account = try await quick.add(server: running.url(path: ""), user: "alice", interaction: User())
            #expect(account.user == "alice")
            #expect(running.simulator.journal.entries.contains { $0.path == "/apm/login" })
        }
    }
}

/// The simulator in front of a real server (here a second simulator, the "real" one): the
/// scenario's faults come from the front, everything else from the server behind it.
@Suite("Simulator as a reverse proxy, live", .timeLimit(.minutes(3)))
struct ReverseProxyTests {
    @Test func theFaultsAreTheScenariosAndTheRestIsTheServers() async throws {
        try await withRunningSimulator("valid") { (server) async throws in
            let front = try await RunningSimulator("five-seconds-of-404", upstream: ReverseProxy(url: server.url(path: "/"), caFile: TestPaths.caBundle))
            do {
                let quick = try ServerChecksTests().setup { $0.retryDelays = [.milliseconds(10), .milliseconds(10), .milliseconds(10)] }
                let account = try await quick.add(server: front.url(path: ""), user: "alice", interaction: ServerChecksTests.User(clock: front.clock))
                #expect(account.user == "alice" && account.server.hasPrefix(front.url(path: "")))
                let faults = front.simulator.journal.entries.filter { $0.fault == true }
                #expect(faults.count == 2 && faults.allSatisfy { $0.path == "/status.php" && $0.status == 404 }, "the storm is the front's")
                let behind = server.simulator.journal.entries
                #expect(behind.filter { $0.path == "/status.php" }.count == 1, "only what the storm let through reached the server")
                #expect(behind.contains { $0.method == "PROPFIND" && $0.accepted == true }, "the server behind checked the password")
            } catch {
                await front.stop()
                throw error
            }
            await front.stop()
        }
    }

    /// The front verifies the server behind it: with the system's trust store, the test CA's
    /// certificate is not trusted, and nothing is forwarded (502), never sent unverified.
    @Test func anUpstreamItCannotVerifyGetsNothing() async throws {
        try await withRunningSimulator("valid") { (server) async throws in
            let front = try await RunningSimulator("valid", upstream: ReverseProxy(url: server.url(path: "/")))
            let answer = try await front.curl(["-u", "alice:alice-test-password"], url: front.url())
            await front.stop()
            #expect(answer.status == 502 && answer.body.contains("The upstream server"), "\(answer)")
            #expect(server.simulator.journal.entries.isEmpty, "no request reached the server")
        }
    }
}

/// The configured OAuth2 client belongs to one server.
@Suite("OAuth2 client credentials")
struct OAuth2ClientCredentialsTests {
    func options(server: String?, defaultURL: String? = nil) -> AccountSetup.Options {
        var options = AccountSetup.Options()
        options.oauth2ClientID = "corp-vigil"
        options.oauth2ClientSecret = Secret("CORP-SECRET")
        options.oauth2ClientServer = server
        options.defaultURL = defaultURL
        return options
    }

    @Test func theClientIsUsedOnlyOnItsServer() {
        let bound = options(server: "https://cloud.example.org/")
        #expect(bound.oauth2Client(for: "https://cloud.example.org")?.id == "corp-vigil")
        #expect(bound.oauth2Client(for: "https://CLOUD.example.org:443")?.secret != nil, "the same server, written otherwise")
        #expect(bound.oauth2Client(for: "https://evil.example.net") == nil)
        #expect(bound.oauth2Client(for: "https://cloud.example.org:8443") == nil, "another port is another server")
        #expect(bound.authentication(for: "https://evil.example.net").oauth2ClientSecret == nil)
        #expect(options(server: nil, defaultURL: "https://cloud.example.org").oauth2Client(for: "https://cloud.example.org") != nil, "bookmark.default-url")
        #expect(options(server: nil).oauth2Client(for: "https://cloud.example.org") == nil, "bound to no server: used nowhere")
    }

    /// Refresh and revoke send the secret only for the configured client on its server: never for
    /// a client an OpenID Connect provider registered for the account.
    @Test func tokenRequestsCarryTheSecretOnlyForTheConfiguredClient() {
        let bound = options(server: "https://cloud.example.org")
        let mine = Account(server: "https://cloud.example.org", user: "alice", method: "com.owncloud.oauth2", clientID: "corp-vigil")
        let registered = Account(server: "https://cloud.example.org", user: "alice", method: "com.owncloud.openid-connect", clientID: "dyn-1234")
        let elsewhere = Account(server: "https://evil.example.net", user: "alice", method: "com.owncloud.oauth2", clientID: "corp-vigil")
        #expect(bound.oauth2ClientSecret(for: mine) != nil)
        #expect(bound.oauth2ClientSecret(for: registered) == nil)
        #expect(bound.oauth2ClientSecret(for: elsewhere) == nil)
    }
}
