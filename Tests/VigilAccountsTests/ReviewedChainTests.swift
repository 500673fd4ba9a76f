import Foundation
import Testing
import VigilAccounts
import VigilAuth
import VigilCertificates
import VigilSecrets
import VigilStore
import VigilTestSupport

/// The account keeps the chain the user reviewed (the bookmark certificate of the renewal rules).
@Suite("The reviewed chain is kept", .timeLimit(.minutes(3)))
struct ReviewedChainTests {
    @Test func anAccountStoresTheChainItWasSetUpWith() async throws {
        try await withRunningSimulator("self-signed-approved") { (running) async throws in
            let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
            var options = AccountSetup.Options()
            options.timeout = .seconds(10)
            options.method = .basicAuth
            let setup = AccountSetup(
                evaluator: try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])), approvals: CertificateApprovals(database: database),
                accounts: Accounts(database: database), secrets: MemorySecretStore(), options: options)
            let account = try await setup.add(server: running.url(path: ""), user: "alice", interaction: ScriptedUser(approves: true))
            let stored = try #require(try await Accounts(database: database).list().first?.reviewedChainPEM)
            #expect(account.reviewedChainPEM == stored)
            let served = try Certificate.load(path: TestPaths.testcert("self-signed-chain.pem"))
            #expect(try Certificate.parsePEM(stored) == served, "the chain as the server sent it, leaf first")
            #expect(try await CertificateApprovals(database: database).list().first?.der.map { [UInt8]($0) } == served.first?.derEncoded)
        }
    }
}
