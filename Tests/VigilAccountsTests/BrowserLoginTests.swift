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

/// A real browser: headless Chromium (Debian's `chromium`, which `make bootstrap` installs), its
/// NSS database trusting the test CA, completes OAuth2 and OpenID Connect through Vigil's
/// loopback listener. No stand-in: the redirects, the callback and the page are Chromium's.
enum Chromium {
    static let path: String? = TestPaths.chromium
    static let certutil: String? = ["/usr/bin/certutil"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var available: Bool { path != nil && certutil != nil }

    /// A HOME of its own whose NSS database trusts the test root (as a browser's store would).
    static func home() throws -> String {
        let home = try TestPaths.temporaryDirectory().path
        let database = home + "/.pki/nssdb"
        try FileManager.default.createDirectory(atPath: database, withIntermediateDirectories: true)
        _ = try CommandRunner.run(certutil ?? "certutil", ["-d", "sql:" + database, "-N", "--empty-password"])
        _ = try CommandRunner.run(
            certutil ?? "certutil", ["-d", "sql:" + database, "-A", "-t", "C,,", "-n", "vigil-test-root", "-i", TestPaths.testcert("root-ca.pem")])
        return home
    }
}

/// The user of a browser login: Chromium opens the URL, follows the provider's redirect to the
/// loopback listener, and shows the page it answers (kept for the test).
final class ChromiumUser: AccountSetupInteraction, Sendable {
    let home: String
    private let pages = RecordedLines()
    init(home: String) { self.home = home }
    var shown: [String] { pages.all }
    private func record(_ page: String) { pages.append(page) }

    func review(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async {}
    func approveCertificate(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async -> Bool { false }
    func approveRedirect(_ redirect: Redirect, from: String) async -> Bool { false }
    func password(user: String, server: String) async -> Secret? { nil }
    func progress(_ message: String) async {}
    func openBrowser(_ url: String) async {
        let result = try? await CommandRunner.runDetached(
            Chromium.path ?? "chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--user-data-dir=\(home)/profile", "--timeout=15000", "--dump-dom", url,
            ], environment: ["HOME": home])
        record(result?.standardOutput ?? "")
    }
}

@Suite(
    "Browser login in headless Chromium, live", .serialized,
    .enabled(if: Chromium.available, "needs Debian's chromium and libnss3-tools: run `make bootstrap`"), .timeLimit(.minutes(3)))
struct BrowserLoginTests {
    func setup(_ running: RunningSimulator, secrets: any SecretStore, _ configure: (inout AccountSetup.Options) -> Void) throws -> AccountSetup {
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        var options = AccountSetup.Options()
        options.timeout = .seconds(10)
        options.browserTimeout = .seconds(45)
        configure(&options)
        return AccountSetup(
            evaluator: try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])), approvals: CertificateApprovals(database: database),
            accounts: Accounts(database: database), secrets: secrets, options: options)
    }

    @Test(arguments: ["openid-connect", "oauth2"])
    func aRealBrowserCompletesTheLogin(method: String) async throws {
        try await withRunningSimulator("oidc") { (running) async throws in
            let secrets = MemorySecretStore()
            let user = ChromiumUser(home: try Chromium.home())
            let setup = try setup(running, secrets: secrets) {
                if method == "oauth2" {
                    $0.method = .oauth2
                    $0.oauth2ClientID = OIDCProvider.staticClientID
                    $0.oauth2ClientServer = running.url(path: "")
                }
            }
            let account = try await setup.add(server: running.url(path: ""), user: "alice", interaction: user)
            #expect(account.method == "com.owncloud.\(method)")
            #expect(try await secrets.secret(for: SecretKey(account: account.secretAccount, kind: .accessToken)) != nil)
            #expect(user.shown.contains { $0.contains("Vigil received the authorization") }, "Chromium showed the loopback's page: \(user.shown)")
            let callbacks = running.simulator.journal.entries.filter { $0.path.contains("/authorize") }
            #expect(callbacks.count == 1, "one authorization request, from Chromium")
        }
    }
}
