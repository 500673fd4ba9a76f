import Foundation
import Testing
import VigilAuth
import VigilCertificates
import VigilHTTP
import VigilRules
import VigilSecrets
import VigilSimulator
import VigilStore
import VigilTestSupport

@testable import VigilAccounts

/// An existing account's server against the chain reviewed at setup, over real TLS: the seeds'
/// renewal rule, a stricter rule, a forged chain, an extended-validation rule.
@Suite("Account check: the renewal rules on a later connection", .timeLimit(.minutes(3)))
struct AccountCheckTests {
    static let seedsRenewal =
        "(bookmarkCertificate.publicKeyData == serverCertificate.publicKeyData) OR ((check.parentCertificatesHaveIdenticalPublicKeys == true) AND (serverCertificate.passedValidationOrIsUserAccepted == true))"
    static let sameKey = "bookmarkCertificate.publicKeyData == serverCertificate.publicKeyData"

    /// An account reviewed with A1, whose server now presents `scenario`'s certificate.
    func check(_ scenario: String, rule: String?, extendedValidation: String? = nil) async throws -> (AccountCheck.Result, Accounts, Account) {
        try await withRunningSimulator(scenario) { (running) async throws in
            let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
            let accounts = Accounts(database: database)
            let a1 = try String(contentsOfFile: TestPaths.testcert("renewed-a1-chain.pem"), encoding: .utf8)
            let account = Account(server: running.url(path: ""), user: "alice", method: "com.owncloud.basicauth", reviewedChainPEM: a1)
            try await accounts.add(account)
            var options = AccountSetup.Options()
            options.timeout = .seconds(10)
            let check = AccountCheck(
                evaluator: try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])), approvals: CertificateApprovals(database: database),
                accounts: accounts, options: options,
                renewalRule: try rule.map { ($0, try CertificateRule(parsing: $0)) },
                extendedValidationRule: try extendedValidation.map { ($0, try CertificateRule(parsing: $0)) })
            return (try await check.check(account), accounts, account)
        }
    }

    @Test func aSameKeyRenewalIsAcceptedAndAudited() async throws {
        let (result, accounts, _) = try await check("renewed-same-key", rule: Self.seedsRenewal)
        #expect(result == .renewed(rule: Self.seedsRenewal))
        let stored = try #require(try await accounts.list().first?.reviewedChainPEM)
        #expect(try Certificate.parsePEM(stored).first == Certificate.load(path: TestPaths.testcert("renewed-a2.pem")).first, "the stored chain is now A2")
        #expect(try await accounts.database.auditTrail().last?.kind == .accountChainRenewed)
    }

    @Test func aRekeyedCertificateFollowsTheRule() async throws {
        // The seeds' default accepts a new key from the same issuer that validates...
        #expect(try await check("rekeyed", rule: Self.seedsRenewal).0 == .renewed(rule: Self.seedsRenewal))
        // ... a same-key rule does not: review again.
        guard case .changed = try await check("rekeyed", rule: Self.sameKey).0 else {
            Issue.record("a new key must be reviewed again")
            return
        }
        // No rule: every change is reviewed again.
        guard case .changed = try await check("rekeyed", rule: nil).0 else {
            Issue.record("no rule, no silent change")
            return
        }
    }

    @Test func aForgedChainIsNeverAcceptedByTheRule() async throws {
        let (result, accounts, _) = try await check("mitm-forged", rule: Self.seedsRenewal)
        guard case .changed = result else {
            Issue.record("\(result)")
            return
        }
        #expect(try await accounts.list().first?.reviewedChainPEM?.contains("BEGIN") == true)
        #expect(try await accounts.database.auditTrail().last?.kind == .accountAdded, "nothing replaced")
    }

    @Test func aFailingExtendedValidationRuleFallsThroughToTheRenewalRule() async throws {
        // The ownCloud SDK's default extended-validation rule fails for any changed certificate;
        // the renewal rule then decides (same key: renewed), as in the SDK.
        let (result, _, _) = try await check("renewed-same-key", rule: Self.seedsRenewal, extendedValidation: "bookmarkCertificate == serverCertificate")
        #expect(result == .renewed(rule: Self.seedsRenewal), "\(result)")
    }

    @Test func anExtendedValidationRuleThatHoldsAcceptsATrustedChangedCertificate() async throws {
        let rule = "bookmarkCertificate.publicKeyData == serverCertificate.publicKeyData"
        let (result, _, _) = try await check("renewed-same-key", rule: "never", extendedValidation: rule)
        #expect(result == .renewed(rule: rule), "\(result)")
    }

    @Test func theExtendedValidationRuleNeverApprovesAnUntrustedCertificate() async throws {
        // A1 was approved (a private CA nothing trusts); the server now shows A2. A rule that holds
        // for A2 lets a connection proceed only for what is trusted or approved, as in the SDK: it
        // is the renewal rule that carries an approval over, and "never" refuses that.
        let rule = "bookmarkCertificate.publicKeyData == serverCertificate.publicKeyData"
        let result = try await withRunningSimulator("renewed-same-key") { (running) async throws -> AccountCheck.Result in
            let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
            let accounts = Accounts(database: database)
            let a1 = try Certificate.load(path: TestPaths.testcert("renewed-a1-chain.pem"))
            let account = Account(
                server: running.url(path: ""), user: "alice", method: "com.owncloud.basicauth", reviewedChainPEM: a1.map(\.pemEncoded).joined())
            try await accounts.add(account)
            let endpoint = try Endpoint(url: running.url(path: ""))
            let approvals = CertificateApprovals(database: database)
            try await approvals.approve(try #require(a1.first), host: endpoint.host, port: endpoint.port, note: "approved at setup")
            var options = AccountSetup.Options()
            options.timeout = .seconds(10)
            let check = AccountCheck(
                evaluator: try TrustEvaluator(configuration: .caFiles([TestPaths.testcert("untrusted-root-ca.pem")])), approvals: approvals,
                accounts: accounts, options: options, renewalRule: ("never", try CertificateRule(parsing: "never")),
                extendedValidationRule: (rule, try CertificateRule(parsing: rule)))
            return try await check.check(account)
        }
        guard case .changed = result else {
            Issue.record("an untrusted certificate was accepted by the extended-validation rule: \(result)")
            return
        }
    }

    @Test func whenNeitherRuleAcceptsTheUserReviews() async throws {
        let (result, _, _) = try await check("renewed-same-key", rule: "never", extendedValidation: "bookmarkCertificate == serverCertificate")
        guard case .changed(let reason) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(reason.contains("neither the extended-validation rule nor the renewal rule"), "\(reason)")
    }

    @Test func brokenCryptographyIsRefused() async throws {
        guard case .refused = try await check("weak-rsa-1024", rule: Self.seedsRenewal).0 else {
            Issue.record("weak key accepted")
            return
        }
    }

    // MARK: - connect: the certificate judged, then the stored credentials

    /// The user of a later connection: approves a changed certificate, or not.
    final class Reviewer: AccountSetupInteraction, Sendable {
        let approves: Bool
        private let log = RecordedLines()
        init(approves: Bool) { self.approves = approves }
        var asked: [String] { log.all }
        private func note(_ text: String) { log.append(text) }
        func review(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async {}
        func approveCertificate(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async -> Bool {
            note("approve?")
            return approves
        }
        func approveRedirect(_ redirect: Redirect, from: String) async -> Bool { false }
        func password(user: String, server: String) async -> Secret? { nil }
        func openBrowser(_ url: String) async {}
        func progress(_ message: String) async {}
    }

    struct Connected {
        var report: AccountCheck.Report
        var approvals: CertificateApprovals
        var accounts: Accounts
        var journal: [JournalEntry]
    }

    /// An account reviewed with `reviewed` (approved at setup when `approved`), the password
    /// `password` in the keyring, its server now playing `scenario`; the client trusts `trust`.
    func connect(
        _ scenario: String, reviewed: String = "renewed-a1", approved: Bool = false, trust: [String] = [TestPaths.caBundle],
        password: String? = "alice-test-password", user: Reviewer? = nil, outageEndsAfterFirstListing: Bool = false
    ) async throws -> Connected {
        try await withRunningSimulator(scenario) { (running) async throws in
            // The simulator's clock stands still in tests: the outage ends when the test says so,
            // once the first listing was answered by it.
            let ending = Task {
                guard outageEndsAfterFirstListing else { return }
                while !running.simulator.journal.entries.contains(where: { $0.method == "PROPFIND" }) { try await Task.sleep(for: .milliseconds(20)) }
                running.clock.advance(seconds: 60)
            }
            defer { ending.cancel() }
            let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
            let accounts = Accounts(database: database), approvals = CertificateApprovals(database: database)
            let chain = try String(contentsOfFile: TestPaths.testcert("\(reviewed)-chain.pem"), encoding: .utf8)
            let account = Account(server: running.url(path: ""), user: "alice", method: "com.owncloud.basicauth", reviewedChainPEM: chain)
            try await accounts.add(account)
            let endpoint = try Endpoint(url: account.server)
            if approved { try await approvals.approve(try Certificate.parsePEM(chain)[0], host: endpoint.host, port: endpoint.port) }
            let secrets = MemorySecretStore()
            if let password { try await secrets.store(Secret(password), for: SecretKey(account: account.secretAccount, kind: .password)) }
            var options = AccountSetup.Options()
            options.timeout = .seconds(10)
            let check = AccountCheck(
                evaluator: try TrustEvaluator(configuration: .caFiles(trust)), approvals: approvals, accounts: accounts, options: options,
                renewalRule: (Self.seedsRenewal, try CertificateRule(parsing: Self.seedsRenewal)), extendedValidationRule: nil)
            let report = try await check.connect(account, secrets: secrets, interaction: user)
            return Connected(report: report, approvals: approvals, accounts: accounts, journal: running.simulator.journal.entries)
        }
    }

    @Test func aWorkingAccountOpensItsFilesWithTheStoredPassword() async throws {
        let connected = try await connect("renewed-same-key")
        #expect(connected.report.certificate == .renewed(rule: Self.seedsRenewal))
        #expect(connected.report.filesStatus == 207 && connected.report.isWorking)
        #expect(connected.journal.contains { $0.method == "PROPFIND" && $0.carriesCredential })
    }

    @Test func anApprovalCarriesOverToARenewalTheRuleAccepts() async throws {
        // A private CA the client does not trust: A1 was approved; A2 (same key) is accepted by the
        // rule, and the approval moves to A2 so that the connection itself accepts it.
        let connected = try await connect("renewed-same-key", approved: true, trust: [])
        #expect(connected.report.certificate == .renewed(rule: Self.seedsRenewal))
        #expect(connected.report.filesStatus == 207)
        let a2 = try Certificate.load(path: TestPaths.testcert("renewed-a2.pem"))[0]
        let carried = try await connected.approvals.list().first { $0.sha256 == a2.sha256Fingerprint }
        #expect(carried?.note?.contains("accepted by the rule") == true)
        // A1's approval is retired: the old certificate cannot come back as a renewal of A2.
        let a1 = try Certificate.load(path: TestPaths.testcert("renewed-a1.pem"))[0]
        #expect(try await connected.approvals.list(includingRevoked: true).first { $0.sha256 == a1.sha256Fingerprint }?.isActive == false)
    }

    @Test func anAccountWithoutAStoredChainIsReviewedOnceThenKeepsIt() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
            let accounts = Accounts(database: database)
            let account = Account(server: running.url(path: ""), user: "alice", method: "com.owncloud.basicauth", reviewedChainPEM: nil)
            try await accounts.add(account)
            var options = AccountSetup.Options()
            options.timeout = .seconds(10)
            let check = AccountCheck(
                evaluator: try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])), approvals: CertificateApprovals(database: database),
                accounts: accounts, options: options, renewalRule: nil, extendedValidationRule: nil)
            guard case .changed = try await check.check(account) else {
                Issue.record("a trusted chain was accepted with nothing to compare")
                return
            }
            let secrets = MemorySecretStore()
            try await secrets.store(Secret("alice-test-password"), for: SecretKey(account: account.secretAccount, kind: .password))
            let report = try await check.connect(account, secrets: secrets, interaction: Reviewer(approves: true))
            #expect(report.certificate == .approvedAgain && report.filesStatus == 207)
            let kept = try #require(try await accounts.list().first)
            let again = try await check.check(kept)
            #expect(again == .unchanged)
        }
    }

    @Test func aNewKeyFromAPrivateCAIsAskedAgain() async throws {
        let user = Reviewer(approves: false)
        let connected = try await connect("rekeyed", approved: true, trust: [], user: user)
        guard case .changed = connected.report.certificate else {
            Issue.record("\(connected.report)")
            return
        }
        #expect(user.asked == ["approve?"])
        #expect(connected.report.filesStatus == nil)
        #expect(connected.journal.isEmpty, "declined: not one request")
    }

    @Test func aTrustedInterceptionCAIsAskedAndNothingIsSentWhenDeclined() async throws {
        let trust = [TestPaths.caBundle, TestPaths.testcert("interception-ca.pem")]
        let declined = try await connect("mitm-trusted-ca", reviewed: "valid-127.0.0.1", trust: trust, user: Reviewer(approves: false))
        guard case .changed(let reason) = declined.report.certificate else {
            Issue.record("\(declined.report)")
            return
        }
        // A CA the user gave (a CA file) is not a root added to this machine: a change, not called an interception.
        #expect(!reason.hasPrefix("INTERCEPTED") && reason.contains("another certificate than the one reviewed"), "\(reason)")
        #expect(declined.journal.isEmpty)
        #expect(
            try await declined.accounts.list()[0].reviewedChainPEM == String(contentsOfFile: TestPaths.testcert("valid-127.0.0.1-chain.pem"), encoding: .utf8))

        let approved = try await connect("mitm-trusted-ca", reviewed: "valid-127.0.0.1", trust: trust, user: Reviewer(approves: true))
        #expect(approved.report.certificate == .approvedAgain)
        #expect(approved.report.filesStatus == 207)
        let stored = try #require(try await approved.accounts.list()[0].reviewedChainPEM)
        #expect(try Certificate.parsePEM(stored)[0] == Certificate.load(path: TestPaths.testcert("intercepted-127.0.0.1.pem"))[0])
        #expect(try await approved.accounts.database.auditTrail().last?.kind == .accountChainRenewed)
    }

    /// A keyring that gives no password (locked, as a timer's session finds it, or emptied) is
    /// said as such, with what to do: never a server's 401 (issue 48), and nothing is sent.
    @Test func aKeyringWithoutThePasswordIsNotAServersRefusal() async throws {
        do {
            let connected = try await connect("valid", reviewed: "valid-127.0.0.1", password: nil)
            Issue.record("checked without a password: \(connected.report)")
        } catch let error as AccountSetupError {
            #expect(error.code == .keyringUnavailable && error.reason.contains("Nothing was sent") && !error.reason.contains("401"), "\(error)")
            #expect(error.reason.contains("vigil account login"), "\(error.reason)")
        }
    }

    /// A load balancer's blip (a 502 window, a 404 storm) is waited out as at setup.
    @Test(arguments: ["bad-gateway-for-two-seconds", "five-seconds-of-404"])
    func aBlipIsWaitedOut(scenario: String) async throws {
        let connected = try await connect(scenario, reviewed: "valid-127.0.0.1", outageEndsAfterFirstListing: true)
        #expect(connected.report.filesStatus == 207 && connected.report.isWorking, "\(connected.report)")
        let listings = connected.journal.filter { $0.method == "PROPFIND" }
        #expect(listings.count > 1 && listings.last?.status == 207, "tried again: \(listings.map(\.status))")
    }

    /// A permanent redirect of the files root to the account's files under another server is a
    /// move: never followed, the new server's certificate reviewed (a handshake, no request) and
    /// `vigil account move` offered. A temporary one, or one elsewhere, is reported, no move offered.
    @Test(arguments: [("server-moved", "https://127.0.0.2:"), ("redirect-same-host", "/moved"), ("redirect-cross-host-302", nil)])
    func aRedirectedFilesRootIsReportedNeverFollowed(scenario: String, target: String?) async throws {
        let connected = try await connect(scenario, reviewed: "valid-127.0.0.1")
        let moved = try #require(connected.report.moved, "\(connected.report)")
        #expect(moved.isMove == (target != nil) && !connected.report.isWorking, "\(moved)")
        let text = moved.text(accountID: "ID")
        if let target, let newServer = moved.newServer {
            // A new name, or a new path on the same host (a server moved under /nextcloud).
            #expect((newServer.hasPrefix(target) || newServer.hasSuffix(target)) && moved.review?.trusted == true, "\(moved)")
            #expect(text.contains("vigil account move ID \(newServer)") && text.contains("moved permanently (301)"), "\(text)")
        } else {
            #expect(!text.contains("vigil account move") && text.contains("temporarily (302)"), "\(text)")
        }
        #expect(connected.journal.allSatisfy { $0.host == "127.0.0.1" }, "nothing but a handshake reached another host")
        #expect(connected.journal.filter { $0.method == "PROPFIND" }.count == 1, "one listing, its redirect never followed")
    }

    /// Where the account's files path sits under another server URL, that is the move's target;
    /// anything else (another path, plain HTTP, the same server) offers none.
    @Test func theMovesTargetIsTheAccountsFilesUnderAnotherServer() {
        let tail = "/remote.php/dav/files/alice/"
        #expect(
            ServerMove.newServer(location: "https://new.example:8443/nc/remote.php/dav/files/alice/", tail: tail, old: "https://old.example")
                == "https://new.example:8443/nc")
        #expect(
            ServerMove.newServer(location: "https://new.example/remote.php/dav/files/alice?x=1", tail: tail, old: "https://old.example")
                == "https://new.example")
        #expect(ServerMove.newServer(location: "https://new.example/login", tail: tail, old: "https://old.example") == nil)
        #expect(ServerMove.newServer(location: "http://new.example/remote.php/dav/files/alice/", tail: tail, old: "https://old.example") == nil)
        #expect(ServerMove.newServer(location: "https://old.example/remote.php/dav/files/alice/", tail: tail, old: "https://old.example") == nil)
        let temporary = ServerMove(status: 307, location: "https://new.example/remote.php/dav/files/alice/", newServer: "https://new.example")
        #expect(!temporary.isMove && !temporary.text(accountID: "ID").contains("account move"))
        let downgrade = ServerMove(status: 301, location: "http://cloud.example/remote.php/dav/files/alice/")
        #expect(downgrade.text(accountID: "ID").contains("overwriteprotocol"))
    }

    @Test func aRefusedPasswordMeansLogInAgain() async throws {
        let connected = try await connect("renewed-same-key", password: "not-the-password")
        #expect(connected.report.filesStatus == 401 && connected.report.needsLogin)
        #expect(!connected.report.isWorking)
    }
}
