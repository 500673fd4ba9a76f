import ArgumentParser
import Foundation
import VigilCertificates
import VigilCore
import VigilHTTP
import VigilLogging
import VigilRules
import VigilSettings
import VigilStore

extension Vigil.AccountCommand {
    /// `vigil account check ID`: the server's certificate against the chain the account was set up with.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check an account's server certificate against the chain reviewed at setup (the renewal rules).",
            discussion: """
                A TLS handshake (no request, no credential). What no approval can make safe is refused; the
                extended-validation rule, when set, must hold; the reviewed leaf passes; a changed leaf passes only
                when connection.renewed-certificate-acceptance-rule accepts it, and then the stored chain is replaced
                and the change audited with the rule. Exit codes: 0 unchanged or renewed by the rule, 1 changed
                (review again) or refused, 2 error.
                """
        )
        @Argument(help: "The account's id (see list).") var id: String
        @Option(name: .customLong("ca-file"), help: "Trust only the CAs in this PEM file instead of the system store (repeatable).") var caFiles: [String] = []
        @OptionGroup var resolveOptions: ResolveOptions
        @OptionGroup var store: Vigil.Certificates.StoreOptions
        @OptionGroup var logOptions: LogOptions

        static func rule(_ settings: Settings, _ key: String) -> (text: String, rule: CertificateRule)? {
            guard let text = settings.string(key), let rule = try? CertificateRule(parsing: text) else { return nil }
            return (text, rule)
        }

        func run() async throws {
            let (settings, logger) = CommandContext.start(logOptions)
            do {
                let database = store.open()
                guard let account = try Accounts(database: database).list().first(where: { $0.id == id }) else {
                    ExitStatus.fail("No account with id \(id); see vigil account list.")
                }
                var options = AccountSetup.Options(settings: settings)
                options.resolve = resolveOptions.pins
                let check = AccountCheck(evaluator: try TrustEvaluator(caFilesOrSystem: caFiles),
                                         approvals: CertificateApprovals(database: database), accounts: Accounts(database: database), options: options,
                                         renewalRule: Self.rule(settings, "connection.renewed-certificate-acceptance-rule"),
                                         extendedValidationRule: Self.rule(settings, "connection.certificate-extended-validation-rule"), logger: logger)
                let result = try await check.check(account)
                switch result {
                case .unchanged: print(SafeText.escaped("\(account.server): the certificate reviewed at setup"))
                case .renewed(let rule): print(SafeText.escaped("\(account.server): a renewed certificate, accepted by the rule \(rule); the stored chain was replaced (see the audit)"))
                case .changed(let reason): print(SafeText.escaped("\(account.server): CHANGED: \(reason)"))
                case .refused(let reasons): print(SafeText.escaped("\(account.server): REFUSED: " + reasons.joined(separator: " ")))
                }
                if !result.isAcceptable { throw ExitCode(ExitStatus.untrusted) }
            } catch let error as HTTPError {
                ExitStatus.fail(error.reason)
            } catch let error as StoreError {
                ExitStatus.fail(error.reason)
            } catch let error as CertificateError {
                ExitStatus.fail(error.reason)
            }
        }
    }
}
