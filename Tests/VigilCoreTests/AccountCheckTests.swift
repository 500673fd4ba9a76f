import Foundation
import Testing
import VigilCertificates
import VigilCore
import VigilRules
import VigilStore
import VigilTestSupport

/// An existing account's server against the chain reviewed at setup, over real TLS: the seeds'
/// renewal rule, a stricter rule, a forged chain, an extended-validation rule.
@Suite("Account check: the renewal rules on a later connection")
struct AccountCheckTests {
    static let seedsRenewal = "(bookmarkCertificate.publicKeyData == serverCertificate.publicKeyData) OR ((check.parentCertificatesHaveIdenticalPublicKeys == true) AND (serverCertificate.passedValidationOrIsUserAccepted == true))"
    static let sameKey = "bookmarkCertificate.publicKeyData == serverCertificate.publicKeyData"

    /// An account reviewed with A1, whose server now presents `scenario`'s certificate.
    func check(_ scenario: String, rule: String?, extendedValidation: String? = nil) async throws -> (AccountCheck.Result, Accounts, Account) {
        let running = try await RunningSimulator(scenario)
        defer { Task { await running.stop() } }
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        let accounts = Accounts(database: database)
        let a1 = try String(contentsOfFile: TestPaths.testcert("renewed-a1-chain.pem"), encoding: .utf8)
        let account = Account(server: running.url(path: ""), user: "alice", method: "com.owncloud.basicauth", reviewedChainPEM: a1)
        try accounts.add(account)
        var options = AccountSetup.Options()
        options.timeout = .seconds(10)
        let check = AccountCheck(evaluator: try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])), approvals: CertificateApprovals(database: database),
                                 accounts: accounts, options: options,
                                 renewalRule: try rule.map { ($0, try CertificateRule(parsing: $0)) },
                                 extendedValidationRule: try extendedValidation.map { ($0, try CertificateRule(parsing: $0)) })
        return (try await check.check(account), accounts, account)
    }

    @Test func aSameKeyRenewalIsAcceptedAndAudited() async throws {
        let (result, accounts, _) = try await check("renewed-same-key", rule: Self.seedsRenewal)
        #expect(result == .renewed(rule: Self.seedsRenewal))
        let stored = try #require(try accounts.list().first?.reviewedChainPEM)
        #expect(try Certificate.parsePEM(stored).first == Certificate.load(path: TestPaths.testcert("renewed-a2.pem")).first, "the stored chain is now A2")
        #expect(try accounts.database.auditTrail().last?.kind == .accountChainRenewed)
    }

    @Test func aRekeyedCertificateFollowsTheRule() async throws {
        // The seeds' default accepts a new key from the same issuer that validates...
        #expect(try await check("rekeyed", rule: Self.seedsRenewal).0 == .renewed(rule: Self.seedsRenewal))
        // ... a same-key rule does not: review again.
        guard case .changed = try await check("rekeyed", rule: Self.sameKey).0 else { Issue.record("a new key must be reviewed again"); return }
        // No rule: every change is reviewed again.
        guard case .changed = try await check("rekeyed", rule: nil).0 else { Issue.record("no rule, no silent change"); return }
    }

    @Test func aForgedChainIsNeverAcceptedByTheRule() async throws {
        let (result, accounts, _) = try await check("mitm-forged", rule: Self.seedsRenewal)
        guard case .changed = result else { Issue.record("\(result)"); return }
        #expect(try accounts.list().first?.reviewedChainPEM?.contains("BEGIN") == true)
        #expect(try accounts.database.auditTrail().last?.kind == .accountAdded, "nothing replaced")
    }

    @Test func theExtendedValidationRuleComesFirst() async throws {
        let (result, _, _) = try await check("renewed-same-key", rule: Self.seedsRenewal, extendedValidation: "bookmarkCertificate == serverCertificate")
        guard case .changed(let reason) = result else { Issue.record("\(result)"); return }
        #expect(reason.contains("extended-validation rule"))
    }

    @Test func brokenCryptographyIsRefused() async throws {
        guard case .refused = try await check("weak-rsa-1024", rule: Self.seedsRenewal).0 else { Issue.record("weak key accepted"); return }
    }
}
