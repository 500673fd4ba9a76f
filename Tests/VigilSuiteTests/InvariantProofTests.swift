import Foundation
import Logging
import Testing
import VigilAccounts
import VigilHTTP
import VigilSecrets
import VigilSettings
import VigilSimulator
import VigilStore
import VigilSuite
import VigilTestSupport

/// A client that does what Vigil's does, then one wrong thing.
struct MisbehavingClient: SuiteClient {
    enum Fault: Sendable {
        case passwordToTheInterceptor, passwordInTheLog, passwordInAFile, secretLeftInTheKeyring, requestAfterDecline, passwordToTheDeclinedRedirect
        case proxyPasswordToEveryProxy, goesAroundTheProxy, cloudPasswordToTheProxy
    }
    let fault: Fault

    func addAccount(_ context: SuiteClientContext) async -> SuiteClientResult {
        let password = "alice-test-password"
        switch fault {
        case .passwordToTheInterceptor:
            // Ignores the certificate (curl -k) and sends Basic credentials to whoever answers.
            _ = try? await CommandRunner.runDetached(
                "/usr/bin/curl",
                [
                    "-s", "-k", "-o", "/dev/null", "--max-time", "10", "-u", "alice:\(password)",
                    "-X", "PROPFIND", context.server + "/remote.php/dav/files/alice/",
                ])
            return .failed(.refused, code: "certificate-rejected", "pretended to refuse")
        case .passwordInTheLog:
            let result = await VigilClient().addAccount(context)
            let log = context.stateDirectory + "/vigil/logs/vigil.log"
            let handle = FileHandle(forWritingAtPath: log)
            handle?.seekToEndOfFile()
            handle?.write(Data("debug: logging in with \(password)\n".utf8))
            try? handle?.close()
            return result
        case .passwordInAFile:
            let result = await VigilClient().addAccount(context)
            try? Data("remember: \(password)\n".utf8).write(to: URL(fileURLWithPath: context.dataDirectory + "/notes.txt"))
            return result
        case .secretLeftInTheKeyring:
            return await VigilClient().addAccount(context)
        case .requestAfterDecline:
            // Asks, hears no, and fetches status.php anyway (no credential).
            let result = await VigilClient().addAccount(context)
            _ = try? await CommandRunner.runDetached("/usr/bin/curl", ["-s", "-k", "-o", "/dev/null", "--max-time", "10", context.server + "/status.php"])
            return result
        case .proxyPasswordToEveryProxy:
            // Sends the proxy password it keeps (for another proxy) to the proxy it is told to
            // use, with the first CONNECT (curl --proxy-basic: pre-emptive), then logs in.
            let credentials = ProxyCredentials(secrets: context.secrets)
            if let kept = try? credentials.list().first, let identity = ProxyIdentity(url: kept.proxy),
                let credential = try? credentials.credential(for: identity), let proxy = context.settings[.proxy]
            {
                await Self.curl(
                    ["--proxy", proxy, "--proxy-basic", "--proxy-user", "\(credential.user):\(credential.password)", context.server + "/status.php"], context)
            }
            return await VigilClient().addAccount(context)
        case .goesAroundTheProxy:
            // Told to use a proxy, it connects to the server directly (and logs in there).
            await Self.curl(["--noproxy", "*", "-u", "alice:\(password)", "-X", "PROPFIND", context.server + "/remote.php/dav/files/alice/"], context)
            return await VigilClient().addAccount(context)
        case .cloudPasswordToTheProxy:
            // Answers the proxy's 407 with the account's own user and password.
            if let proxy = context.settings[.proxy] {
                await Self.curl(["--proxy", proxy, "--proxy-anyauth", "--proxy-user", "alice:\(password)", context.server + "/status.php"], context)
            }
            return await VigilClient().addAccount(context)
        case .passwordToTheDeclinedRedirect:
            // Asks about the redirect, hears no, and logs in at the target anyway (its certificate is valid).
            let result = await VigilClient().addAccount(context)
            if let target = context.user.questions.last?.about {
                await Self.curl(["-u", "alice:\(password)", "-X", "PROPFIND", "https://\(target)/remote.php/dav/files/alice/"], context)
            }
            return result
        }
    }

    /// curl, quiet, bounded, trusting the scenario's CA file, with `arguments`.
    static func curl(_ arguments: [String], _ context: SuiteClientContext) async {
        _ = try? await CommandRunner.runDetached("/usr/bin/curl", ["-s", "-o", "/dev/null", "--max-time", "10", "--cacert", context.caFile] + arguments)
    }

    func removeAccount(_ account: Account, context: SuiteClientContext) async throws {
        if fault == .secretLeftInTheKeyring {
            // Removes the row and forgets the keyring.
            _ = try await Accounts(database: try VigilDatabase(path: context.databasePath)).remove(id: account.id)
            return
        }
        try await VigilClient().removeAccount(account, context: context)
    }
}

/// A client that reports an error at once.
struct GivesUp: SuiteClient {
    func addAccount(_ context: SuiteClientContext) async -> SuiteClientResult { .failed(.error, code: "error", "gave up") }
    func removeAccount(_ account: Account, context: SuiteClientContext) async throws {}
}

/// The suite can fail: each invariant broken on purpose is caught, with the right message, over
/// real TLS, a real SQLite file and the real keyring.
@Suite(
    "vigil simulate: the invariants catch a misbehaving client", .serialized,
    .enabled(if: TestPaths.hasKeyring, "needs a Secret Service: run `make test` (dbus-run-session + gnome-keyring)"))
struct InvariantProofTests {
    let library = try! ScenarioLibrary(directory: RunningSimulator.fixtures)

    func run(_ scenario: String, client: any SuiteClient, gap: KnownGaps.Gap? = nil) async throws -> ScenarioResult {
        let directory = try TestPaths.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let runner = ScenarioRunner(
            scenario: try library.scenario(named: scenario), certificatesDirectory: RunningSimulator.certificates,
            directory: directory + "/" + scenario, client: client, secrets: KeyringSecretStore())
        return await runner.run(knownGap: gap)
    }

    /// The result's violation with `code`, if the judge found one: tests assert codes, and the
    /// message only for where it happened.
    static func violation(_ result: ScenarioResult, _ code: Violation.Code) -> Violation? {
        result.violations.first { $0.code == code }
    }

    @Test func vigilsOwnClientPassesTheBaseline() async throws {
        let result = try await run("basic-only", client: VigilClient())
        #expect(result.status == .passed, "\(result.failures)")
        #expect(result.got == "login" && result.invariants.allHold)
    }

    @Test func aPasswordSentToTheManInTheMiddle() async throws {
        let result = try await run("mitm-forged", client: MisbehavingClient(fault: .passwordToTheInterceptor))
        #expect(result.status == .failed)
        #expect(!result.invariants.credentials)
        #expect(Self.violation(result, .credentialToUntrusted)?.message.contains("PROPFIND") == true, "\(result.violations)")
        #expect(result.expected == "ask-certificate" && result.got != result.expected, "it never asked: \(result.got)")
    }

    @Test func aPasswordInTheLog() async throws {
        let result = try await run("basic-only", client: MisbehavingClient(fault: .passwordInTheLog))
        #expect(result.status == .failed)
        #expect(result.invariants.logs == false && result.invariants.credentials)
        #expect(Self.violation(result, .secretInLog)?.message.contains("state/vigil/logs/vigil.log") == true, "\(result.violations)")
        #expect(result.invariants.files == false, "the log file is a file too")
    }

    @Test func aPasswordInAFile() async throws {
        let result = try await run("basic-only", client: MisbehavingClient(fault: .passwordInAFile))
        #expect(result.status == .failed)
        #expect(result.invariants.files == false && result.invariants.logs == true)
        #expect(Self.violation(result, .secretInFile)?.message.contains("data/notes.txt") == true, "\(result.violations)")
    }

    @Test func aSecretLeftInTheKeyring() async throws {
        let result = try await run("basic-only", client: MisbehavingClient(fault: .secretLeftInTheKeyring))
        #expect(result.status == .failed)
        #expect(result.invariants.keyring == false)
        #expect(Self.violation(result, .keyring) != nil, "\(result.violations)")
    }

    /// Issue 33: a proxy password sent to a proxy that never asked (the one the client was told to
    /// use, not the one the password was kept for), before any 407, is a credential disclosed.
    @Test func aProxyPasswordToAProxyThatNeverAsked() async throws {
        let result = try await run("proxy-credential-elsewhere", client: MisbehavingClient(fault: .proxyPasswordToEveryProxy))
        #expect(result.status == .failed)
        #expect(!result.invariants.credentials)
        #expect(Self.violation(result, .proxyCredentialDisclosed)?.message.contains("proxy 2") == true, "\(result.violations)")
        let careful = try await run("proxy-credential-elsewhere", client: VigilClient())
        #expect(careful.status == .passed, "\(careful.failures)")
    }

    /// A client told to use a proxy that goes around it, and one that gives a proxy the account's
    /// own password: both fail the suite.
    @Test func aClientThatBypassesTheProxyOrGivesItTheCloudPassword() async throws {
        let around = try await run("proxy-auth-digest", client: MisbehavingClient(fault: .goesAroundTheProxy))
        #expect(around.status == .failed && !around.invariants.credentials)
        #expect(Self.violation(around, .proxyBypassed) != nil, "\(around.violations)")
        let given = try await run("proxy-auth-required", client: MisbehavingClient(fault: .cloudPasswordToTheProxy))
        #expect(given.status == .failed && !given.invariants.credentials)
        #expect(Self.violation(given, .credentialToProxy)?.message.contains("proxy 1") == true, "\(given.violations)")
    }

    /// A known gap covers an outcome, never an invariant.
    @Test func aKnownGapDoesNotCoverABrokenInvariant() async throws {
        let gap = KnownGaps.Gap(outcome: "ask-certificate", got: "refuse", reason: "test")
        let result = try await run("mitm-forged", client: MisbehavingClient(fault: .passwordToTheInterceptor), gap: gap)
        #expect(result.status == .failed)
    }

    /// The ratchet: a listed scenario that passes fails the suite, and says what to do.
    @Test func aKnownGapThatStartsPassingFailsTheSuite() async throws {
        let scenario = try library.scenario(named: "basic-only")
        let directory = try TestPaths.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let listed = SimulationSuite(
            scenarios: [scenario], knownGaps: KnownGaps(gaps: ["basic-only": .init(outcome: "login", got: "report-error", reason: "pretend")]),
            certificatesDirectory: RunningSimulator.certificates, workDirectory: directory, secrets: KeyringSecretStore())
        let report = await listed.run()
        #expect(!report.succeeded)
        #expect(report.results.first?.status == .gapClosed)
        #expect(report.results.first?.failures.first?.contains("remove it from known-gaps.json") == true)
        #expect(report.junit().contains("type=\"gap-closed\""))

        // And a listed scenario that still misses its outcome is a known gap: the suite passes.
        var stillMissing = SimulationSuite(
            scenarios: [scenario], knownGaps: KnownGaps(gaps: ["basic-only": .init(outcome: "login", got: "report-error", reason: "not yet")]),
            certificatesDirectory: RunningSimulator.certificates, workDirectory: directory, secrets: KeyringSecretStore())
        stillMissing.client = GivesUp()
        let gapReport = await stillMissing.run()
        #expect(gapReport.succeeded && gapReport.results.first?.status == .knownGap)
        #expect(gapReport.junit().contains("<skipped message=\"known gap"))

        // A gap that changes (the client gets something else now) is checked again.
        var changed = stillMissing
        changed.knownGaps = KnownGaps(gaps: ["basic-only": .init(outcome: "login", got: "refuse", reason: "recorded before")])
        let changedReport = await changed.run()
        #expect(!changedReport.succeeded && changedReport.results.first?.status == .failed)
        #expect(changedReport.results.first?.got == "report-error", "the gap recorded refuse; the client now gets report-error")
    }

    /// Declining is final: a client that asks, hears no and goes on anyway fails, even where
    /// nothing it sent was a credential, and a known gap does not cover it.
    @Test func aRequestAfterTheUserDeclinedTheCertificate() async throws {
        let result = try await run(
            "self-signed", client: MisbehavingClient(fault: .requestAfterDecline),
            gap: .init(outcome: "ask-certificate", got: "ask-certificate", reason: "would hide it"))
        #expect(result.status == .failed)
        #expect(result.got == "ask-certificate", "the outcome alone looks right")
        #expect(Self.violation(result, .requestAfterDecline)?.message.contains("GET /status.php") == true, "\(result.violations)")
    }

    @Test func aPasswordToARedirectTargetTheUserDeclined() async throws {
        let result = try await run("redirect-cross-host-302", client: MisbehavingClient(fault: .passwordToTheDeclinedRedirect))
        #expect(result.status == .failed)
        #expect(!result.invariants.credentials, "host 2's certificate is valid, but the user never agreed to it")
        #expect(Self.violation(result, .credentialToUnagreedHost)?.message.contains("PROPFIND") == true, "\(result.violations)")
    }
}
