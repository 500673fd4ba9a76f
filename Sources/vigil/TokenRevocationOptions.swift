import ArgumentParser
import CVigilSystem
import FoundationEssentials
import Glibc
import Logging
import VigilAccounts
import VigilAuth
import VigilCertificates
import VigilCommandLine
import VigilHTTP
import VigilLogging
import VigilSecrets
import VigilSettings
import VigilStore
import VigilText

/// How `account logout` and `account remove` revoke tokens: over a connection to the account's
/// reviewed certificate (judged against `--ca-file` or the system store), or not at all.
struct TokenRevocationOptions: ParsableArguments {
    @Flag(help: "Do not contact the server to revoke the tokens.") var noRevoke = false
    @Option(name: .customLong("ca-file"), help: "Trust only the CAs in this PEM file instead of the system store (repeatable).", completion: Completions.file)
    var caFiles: [String] = []
    @OptionGroup var resolveOptions: ResolveOptions

    /// The check the revocation goes through; nil with `--no-revoke`.
    func check(database: VigilDatabase, settings: Settings, logger: Logger) throws -> AccountCheck? {
        guard !noRevoke else { return nil }
        var check = AccountCheck(
            evaluator: try TrustEvaluator(caFilesOrSystem: caFiles, settings: settings), database: database, settings: settings, logger: logger)
        check.options.resolve = resolveOptions.pins
        // The account's client certificate and access headers, from the keyring: the revocation
        // reaches a server behind mutual TLS or an access proxy as every request does.
        check.clientKeys = KeyringSecretStore()
        return check
    }

    /// One line: what was done, the secrets removed, the tokens revoked; then a warning if they were not.
    static func report(_ result: AccountRemoval.Result, done: String, then: String) {
        let account = result.account
        let removed = result.removedSecrets.map(\.rawValue)
        let appPassword = account.method == AuthenticationMethodIdentifier.loginFlowV2.rawValue
        let revoked = appPassword ? ["app password"] : result.revoked.map(\.rawValue)
        print(
            SafeText.escaped(
                "\(done) \(account.id): \(account.user) on \(account.server)"
                    + (removed.isEmpty ? "; no secret was in the keyring" : "; removed from the keyring: \(removed.joined(separator: ", "))")
                    + (result.revoked.isEmpty ? "" : "; revoked at the server: \(revoked.joined(separator: ", "))") + then))
        if let problem = result.revocationProblem {
            print(SafeText.escaped("warning: the \(appPassword ? "app password was" : "tokens were") not revoked: \(problem)"))
        }
    }
}
