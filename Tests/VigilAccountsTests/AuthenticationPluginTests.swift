import Foundation
import Testing
import VigilAccounts
import VigilAuth
import VigilCertificates
import VigilHTTP
import VigilSecrets
import VigilStore
import VigilTestSupport

/// A method that is not Vigil's: an "app password" (a password made for one client, sent as
/// Basic), offered wherever Basic is. It is one new type registered with setup, no branch in
/// setup, and the account it adds works with `account check` through the same registry.
struct AppPasswordAuthentication: AuthenticationMethod {
    let identifier = AuthenticationMethodIdentifier(rawValue: "org.example.app-password")
    let secretKinds: [SecretKey.Kind] = [.password]
    let usesTokens = false

    func isOffered(by detection: AuthenticationDetection) -> Bool { detection.methods.contains { $0.identifier == .basicAuth } }

    func logIn(_ context: AuthenticationContext, interaction: any AuthenticationInteraction) async throws -> AuthenticationLogin {
        await interaction.progress("Create an app password for Vigil in the server's settings, then type it.")
        guard let password = await interaction.password(user: context.user, server: context.server) else { throw AuthenticationError(.noPassword, "none") }
        return AuthenticationLogin(
            secrets: [.password: password], authorization: Secret(authorization(user: context.user, secrets: [.password: password]) ?? ""),
            refusal: "\(context.server) refused the app password.")
    }

    func authorization(user: String, secrets: [SecretKey.Kind: Secret]) -> String? {
        secrets[.password].map { password in password.withValue { "Basic " + Data("\(user):\($0)".utf8).base64EncodedString() } }
    }
}

@Suite("Authentication methods as plug-ins, live", .timeLimit(.minutes(3)))
struct AuthenticationPluginTests {
    @Test func aRegisteredMethodAddsAnAccountThatChecksWork() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
            let secrets = MemorySecretStore()
            var options = AccountSetup.Options()
            options.timeout = .seconds(10)
            options.method = AppPasswordAuthentication().identifier
            let evaluator = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle]))
            var setup = AccountSetup(
                evaluator: evaluator, approvals: CertificateApprovals(database: database), accounts: Accounts(database: database),
                secrets: secrets, options: options)
            setup.methods.register(AppPasswordAuthentication())
            let user = ScriptedUser()
            let account = try await setup.add(server: running.url(path: ""), user: "alice", interaction: user)
            #expect(account.method == "org.example.app-password")
            #expect(user.asked.contains("password?"))

            var check = AccountCheck(
                evaluator: evaluator, approvals: CertificateApprovals(database: database), accounts: Accounts(database: database),
                options: options, renewalRule: nil, extendedValidationRule: nil)
            check.methods = setup.methods
            #expect(try await check.connect(account, secrets: secrets, interaction: nil).isWorking)

            // Without the plug-in registered, the same account is refused with words, not a crash.
            check.methods = .standard
            await #expect(throws: AccountSetupError.self) { _ = try await check.connect(account, secrets: secrets, interaction: nil) }
        }
    }
}
