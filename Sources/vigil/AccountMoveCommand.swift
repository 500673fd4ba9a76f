import ArgumentParser
import FoundationEssentials
import Glibc
import VigilAccounts
import VigilCertificates
import VigilCommandLine
import VigilLogging
import VigilSecrets
import VigilStore
import VigilText

extension Vigil.AccountCommand {
    struct Move: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "move",
            abstract: "Move an account to its server's new URL, after reviewing the new server.",
            usage: CommandHelp.usage("account move"),
            discussion: CommandHelp.discussion(
                "account move",
                """
                The new server is reviewed as at setup: its certificate shown (approve it at the terminal or with \
                --approve-certificate), its status.php an ownCloud or OpenCloud server's, no redirect followed. A password \
                account's stored password is proved on the user's files there before it moves; a token account needs \
                `vigil account login` afterwards (its tokens were the old server's). The old server's approvals are revoked \
                when no account uses it any more (--keep-approvals keeps them). Exit codes: 0 moved, 1 refused, 2 error.
                """)
        )
        @Argument(help: Completions.accountHelp, completion: Completions.accounts) var id: String
        @Argument(help: "The server's new URL, https://HOST[:PORT][/PATH].") var url: String
        @Option(help: "Approve the new server's certificate with this SHA-256 fingerprint (hex, colons optional).") var approveCertificate: String?
        @Flag(help: "Keep the old server's certificate approvals.") var keepApprovals = false
        @Option(
            name: .customLong("ca-file"),
            help: "Trust only the CAs in this PEM file (repeatable); the account keeps them. Default: the CAs kept with the account, else the system store.",
            completion: Completions.file)
        var caFiles: [String] = []
        @OptionGroup var resolveOptions: ResolveOptions
        @OptionGroup var store: Vigil.Certificates.StoreOptions
        @OptionGroup(title: "Log options") var logOptions: LogOptions

        func validate() throws {
            try Vigil.Certificates.Approve.validate(approving: approveCertificate)
        }

        func run() async throws {
            let (settings, logger) = try CommandContext.start(logOptions)
            let database = try await store.open()
            do {
                let account = try await Accounts(database: database).resolve(id)
                let given = try TrustEvaluator(caFilesOrSystem: caFiles, settings: settings)
                var check = AccountCheck(evaluator: given, database: database, settings: settings, logger: logger)
                check.options.resolve = resolveOptions.pins
                // The new server is judged as account check judged it when it offered this move:
                // with the CA certificates kept with the account, unless --ca-file gives others
                // (which the account then keeps).
                let evaluator = caFiles.isEmpty ? try check.evaluator(for: account) : given
                let setup = AccountSetup(
                    evaluator: evaluator, approvals: check.approvals, accounts: check.accounts, secrets: KeyringSecretStore(), options: check.options,
                    logger: logger)
                let interaction = TerminalInteraction(
                    approvedFingerprint: approveCertificate.map(Vigil.Certificates.Approve.normalized), acceptedRedirects: [],
                    passwordFromStandardInput: false, browser: nil)
                var moved = try await setup.move(account, to: url, interaction: interaction)
                if !caFiles.isEmpty {
                    let pem = try caFiles.flatMap { try Certificate.load(path: $0) }.map(\.pemEncoded).joined()
                    moved = try await check.accounts.setTrustAnchors(
                        id: moved.id, pem: pem, because: "trusts \(caFiles.count) CA file(s) given with account move")
                }
                print(
                    SafeText.escaped(
                        "moved account \(moved.id): \(moved.user) from \(account.server) to \(moved.server)"
                            + (moved.needsLogin
                                ? "; log in there with \(SuggestedCommand.line(["vigil", "account", "login", moved.id]))" : "; the password moved with it")))
                let leftOver = try await AccountRemoval(accounts: check.accounts, secrets: KeyringSecretStore()).revokeApprovalsLeftOver(
                    by: account, approvals: check.approvals, keep: keepApprovals)
                for approval in leftOver {
                    print(
                        SafeText.escaped("revoked approval \(approval.id ?? 0) of \(approval.host):\(approval.port): no account uses the old server any more"))
                }
            } catch {
                throw CommandFailure(error)
            }
        }
    }
}
