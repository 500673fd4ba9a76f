import ArgumentParser
import FoundationEssentials
import Glibc
import VigilAccounts
import VigilCertificates
import VigilCommandLine
import VigilHTTP
import VigilLogging
import VigilSecrets
import VigilStore

extension Vigil.AccountCommand {
    /// `vigil account login ID`: an existing account logs in again.
    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "login",
            abstract: "Log an account in again (after a refused refresh or a changed password).",
            usage: CommandHelp.usage("account login"),
            discussion: CommandHelp.discussion(
                "account login",
                """
                The server's certificate is judged as on every later connection (a changed one is shown for review; approve \
                it at the terminal or with --approve-certificate). Then, with the account's method: the password is asked \
                and checked (Basic), or the browser login runs again (OAuth2; OpenID Connect with discovery read again and \
                the id_token validated). The new secret replaces the old in the keyring and the account is ready again.

                Exit codes: 0 logged in, 1 refused (certificate, credentials, login not finished), 2 error, 78 a setting \
                the method needs is missing.
                """)
        )
        @Argument(help: Completions.accountHelp, completion: Completions.accounts) var id: String
        @Flag(help: "Read the password from standard input instead of the terminal.") var passwordStdin = false
        @Option(help: "Approve a changed certificate with this SHA-256 fingerprint (hex, colons optional).") var approveCertificate: String?
        @Option(help: "Open the browser login with this command (words split on spaces; the URL is added last) instead of $BROWSER or xdg-open.") var browser:
            String?
        @Flag(help: "Print the browser login's URL and wait; open no browser.") var noBrowser = false
        @Option(
            name: .customLong("ca-file"), help: "Trust only the CAs in this PEM file instead of the system store (repeatable).", completion: Completions.file)
        var caFiles: [String] = []
        @Option(
            help: ArgumentHelp(
                "Seconds to wait for the browser login before giving up (default: authentication.browser-timeout-seconds, 300).",
                valueName: "seconds"))
        var browserTimeout: Int?
        @Option(help: "Seconds to wait for each connection and answer.") var timeout: Double = 30
        @OptionGroup var resolveOptions: ResolveOptions
        @OptionGroup var store: Vigil.Certificates.StoreOptions
        @OptionGroup(title: "Log options") var logOptions: LogOptions

        func validate() throws {
            try Vigil.Certificates.Approve.validate(approving: approveCertificate)
            guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be between 0 and 600 seconds.") }
            if let browserTimeout, !(10...3_600).contains(browserTimeout) {
                throw ValidationError("--browser-timeout must be between 10 and 3600 seconds.")
            }
        }

        func run() async throws {
            let (settings, logger) = try CommandContext.start(logOptions)
            let database = try await store.open()
            do {
                let account = try await Accounts(database: database).resolve(id)
                let evaluator = try TrustEvaluator(caFilesOrSystem: caFiles, settings: settings)
                var check = AccountCheck(evaluator: evaluator, database: database, settings: settings, logger: logger)
                check.options.timeout = .milliseconds(Int64(timeout * 1000))
                check.options.resolve = resolveOptions.pins
                if let browserTimeout { check.options.browserTimeout = .seconds(browserTimeout) }
                let setup = AccountSetup(
                    evaluator: evaluator, approvals: check.approvals, accounts: check.accounts, secrets: KeyringSecretStore(),
                    options: check.options, logger: logger)
                var interaction = TerminalInteraction(
                    approvedFingerprint: approveCertificate.map(Vigil.Certificates.Approve.normalized),
                    acceptedRedirects: [], passwordFromStandardInput: passwordStdin,
                    browser: browser.map { $0.split(separator: " ").map(String.init) })
                interaction.noBrowser = noBrowser
                let updated = try await setup.logIn(again: account, check: check, interaction: interaction)
                print(SafeText.escaped("logged in again: \(updated.user) on \(updated.server) (\(updated.method)); \(Add.stored(updated))"))
            } catch {
                throw CommandFailure(error)
            }
        }
    }
}
