import ArgumentParser
import FoundationEssentials
import Glibc
import VigilAccounts
import VigilCertificates
import VigilCommandLine
import VigilRules

extension Vigil.Certificates {
    /// `vigil certificates rule-test`: one rule, two chains, the answer.
    struct RuleTest: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rule-test",
            abstract: "Evaluate a certificate rule against a stored (bookmark) and a presented (server) chain.",
            usage: CommandHelp.usage("certificates rule-test"),
            discussion: CommandHelp.discussion(
                "certificates rule-test",
                """
                The rule language of connection.renewed-certificate-acceptance-rule and \
                connection.certificate-extended-validation-rule (docs/trust.md). The server chain's \
                passedValidationOrIsUserAccepted is its verdict against --ca-file (or the system store) for --host.

                Exit codes: 0 the rule holds, 1 it does not, 2 unreadable certificates, 64 a rule that does not \
                parse (the column is named).
                """)
        )
        @Argument(help: "The rule.") var rule: String
        @Option(help: "PEM file of the chain stored with the account (leaf first).", completion: Completions.file) var bookmark: String
        @Option(help: "PEM file of the chain the server presents (leaf first).", completion: Completions.file) var server: String
        @Option(help: "The host the server chain must be valid for.") var host: String?
        @Option(name: .customLong("ca-file"), help: "Judge the server chain against only these CAs (repeatable).", completion: Completions.file) var caFiles:
            [String] = []
        @OptionGroup(title: "Log options") var logOptions: LogOptions

        func validate() throws {
            do { _ = try CertificateRule(parsing: rule) } catch let error as CertificateRule.SyntaxError {
                throw ValidationError("the rule does not parse at \(error)")
            }
        }

        func run() throws {
            let (settings, _) = try CommandContext.start(logOptions)
            do {
                let parsed = try CertificateRule(parsing: rule)
                let bookmarkChain = try Certificate.load(path: bookmark), serverChain = try Certificate.load(path: server)
                let evaluator = try TrustEvaluator(caFilesOrSystem: caFiles, settings: settings)
                let peer = host.map { PeerName(host: $0) }
                let evaluation = evaluator.evaluate(serverChain, for: peer)
                let holds = parsed.evaluate(
                    CertificateRuleContext(
                        bookmark: CertificateRuleContext.path(evaluator.evaluate(bookmarkChain, for: peer), sent: bookmarkChain),
                        server: CertificateRuleContext.path(evaluation, sent: serverChain), serverPassedValidationOrIsUserAccepted: evaluation.verdict.isTrusted
                    ))
                print(holds ? "the rule holds" : "the rule does not hold")
                if !holds { throw ExitCode(ExitStatus.untrusted) }
            } catch let error as CertificateError {
                throw CommandFailure(error)
            } catch let error as CertificateRule.SyntaxError {
                throw CommandFailure("the rule does not parse at \(error)", status: ExitStatus.usage)
            }
        }
    }
}
