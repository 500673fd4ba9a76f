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

extension Vigil {
    /// `vigil account`: every subcommand on an account, from adding it to removing it.
    struct AccountCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "account",
            abstract: "Accounts: add (with certificate review), list, show, check, login, rename, edit, logout, move, remove.",
            subcommands: [Add.self, List.self, Show.self, Check.self, Login.self, Rename.self, Edit.self, Logout.self, Move.self, Remove.self]
        )

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add",
                abstract: "Add an account: review the certificate, detect the login methods, log in.",
                usage: CommandHelp.usage("account add"),
                discussion: CommandHelp.discussion(
                    "account add",
                    """
                    The server's certificate chain and verdict are shown before anything is sent. An untrusted \
                    certificate must be approved: interactively, or with --approve-certificate and the fingerprint \
                    obtained through another channel. Redirects are reported, never followed. The password (Basic \
                    authentication) is asked last, checked, and kept in the keyring; OAuth2 opens the browser, \
                    takes the answer on a loopback address (PKCE) and keeps the tokens in the keyring; OpenID Connect \
                    does the same with a registered client and a validated id_token. Without a URL, bookmark.default-url \
                    is used; with bookmark.url-editable false, no other URL is accepted. An http URL only leads to its \
                    https server (connection.plain-http-policy). A client certificate (--client-certificate, mutual TLS) \
                    is shown for review, refused when expired, without clientAuth or with broken crypto, kept with its key \
                    in the keyring, and presented only to the account's server once its certificate is accepted.

                    Exit codes: 0 added; 1 refused (certificate not approved, redirect, wrong credentials, no password, a \
                    locked URL, a client certificate refused or missing); 2 error (an unreadable client certificate, a \
                    wrong passphrase, a key that does not match); 64 usage; 75 unavailable for now; 78 a setting the \
                    method needs is missing.
                    """)
            )
            @Argument(help: "The server, https://HOST[:PORT][/PATH] (default: bookmark.default-url).") var url: String?
            @Option(help: "The user name.") var user: String
            @Flag(help: "Read the password from standard input instead of the terminal.") var passwordStdin = false
            @Option(help: "Approve an untrusted certificate with this SHA-256 fingerprint (hex, colons optional).") var approveCertificate: String?
            @Option(help: "Approve a redirect of status.php to this exact URL (repeatable).") var acceptRedirect: [String] = []
            @Option(
                help:
                    "Present the account's client certificate and access headers to this server too, https://HOST[:PORT], when a redirect you approve moves setup there (repeatable; --accept-redirect does not imply it)."
            )
            var presentCredentialsTo: [String] = []
            @Option(
                help: "Use this method: basic, oauth2, openid-connect or login-flow-v2 (Nextcloud; or its full identifier).", completion: Completions.methods)
            var method: String?
            @Option(help: "Open the browser login with this command (words split on spaces; the URL is added last) instead of $BROWSER or xdg-open.")
            var browser: String?
            @Flag(help: "Print the browser login's URL and wait; open no browser.") var noBrowser = false
            @Option(
                help: ArgumentHelp(
                    "Seconds to wait for the browser login before giving up (default: authentication.browser-timeout-seconds, 300).",
                    valueName: "seconds"))
            var browserTimeout: Int?
            @Option(
                name: .customLong("ca-file"), help: "Trust only the CAs in this PEM file instead of the system store (repeatable).",
                completion: Completions.file) var caFiles: [String] =
                    []
            @Option(help: "Seconds to wait for each connection and answer.") var timeout: Double = 30
            @OptionGroup var resolveOptions: ResolveOptions
            @OptionGroup var clientCertificateOptions: ClientCertificateOptions
            @OptionGroup var accessHeadersOptions: AccessHeadersOptions
            @OptionGroup var store: Certificates.StoreOptions
            @OptionGroup(title: "Log options") var logOptions: LogOptions

            func validate() throws {
                try Vigil.Certificates.Approve.validate(approving: approveCertificate)
                if let method, Self.identifier(method) == nil {
                    throw ValidationError("--method must be basic, oauth2, openid-connect or login-flow-v2.")
                }
                guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be between 0 and 600 seconds.") }
                if let browserTimeout, !(10...3_600).contains(browserTimeout) {
                    throw ValidationError("--browser-timeout must be between 10 and 3600 seconds.")
                }
                for origin in presentCredentialsTo where (try? Endpoint(url: origin)) == nil {
                    throw ValidationError("--present-credentials-to takes a server's https URL, https://HOST[:PORT]; '\(SafeText.escaped(origin))' is not one.")
                }
            }

            /// What the keyring now holds, in words.
            static func stored(_ account: Account) -> String {
                if account.method == AuthenticationMethodIdentifier.loginFlowV2.rawValue {
                    return "the app password is in the keyring (revoked at the server by `vigil account remove`)"
                }
                if account.noRefreshToken {
                    return "the access token is in the keyring; the provider issued no refresh token, so a new login is needed when it expires"
                        + (account.tokenExpiresAt.map { " (\(ISOTime.string($0))): \(SuggestedCommand.line(["vigil", "account", "login", account.id]))" }
                            ?? ": \(SuggestedCommand.line(["vigil", "account", "login", account.id]))")
                }
                return account.method == AuthenticationMethodIdentifier.basicAuth.rawValue
                    ? "the password is in the keyring"
                    : "the access and refresh tokens are in the keyring"
                        + (account.tokenExpiresAt.map { "; the access token expires \(ISOTime.string($0)) and is refreshed when needed" } ?? "")
            }

            static func identifier(_ text: String) -> AuthenticationMethodIdentifier? {
                switch text {
                case "basic", AuthenticationMethodIdentifier.basicAuth.rawValue: return .basicAuth
                case "oauth2", AuthenticationMethodIdentifier.oauth2.rawValue: return .oauth2
                case "openid-connect", "oidc", AuthenticationMethodIdentifier.openIDConnect.rawValue: return .openIDConnect
                case "login-flow-v2", "nextcloud", AuthenticationMethodIdentifier.loginFlowV2.rawValue: return .loginFlowV2
                default: return nil
                }
            }

            func run() async throws {
                EarlyWork.transfers()
                let (settings, logger) = try CommandContext.start(logOptions)
                let database = try await store.open()
                var options = AccountSetup.Options(settings: settings)
                options.method = method.flatMap(Self.identifier)
                // A password on standard input is a script's: Basic first where the server offers
                // it, not a browser login that waits for a person.
                if passwordStdin, options.method == nil {
                    options.preferredMethods = [.basicAuth] + options.preferredMethods.filter { $0 != .basicAuth }
                }
                options.passwordGiven = passwordStdin
                options.timeout = .milliseconds(Int64(timeout * 1000))
                if let browserTimeout { options.browserTimeout = .seconds(browserTimeout) }
                options.resolve = resolveOptions.pins
                do {
                    // The client certificate is read and shown first; setup refuses one no server
                    // should take before anything is sent.
                    options.clientIdentity = try clientCertificateOptions.identity()
                    if let identity = options.clientIdentity { print(ClientCertificateOptions.review(identity)) }
                    options.accessHeaders = try accessHeadersOptions.headers()
                    guard let server = url ?? options.defaultURL else {
                        throw CommandFailure("Give the server's URL (no bookmark.default-url is set).", status: ExitStatus.usage)
                    }
                    // The client certificate and access headers go to the server named here, and to a
                    // redirect's target only when the user agrees (--present-credentials-to).
                    options.credentialsOrigin = try? Endpoint(url: server)
                    if let headers = options.accessHeaders {
                        guard options.credentialsOrigin != nil else {
                            throw CommandFailure("--access-headers-file needs the server's https URL: they go to that origin only.", status: ExitStatus.usage)
                        }
                        print(SafeText.escaped("Access headers (values in the keyring, sent to \(server) only): \(headers.names.joined(separator: ", "))"))
                    }
                    let evaluator = try TrustEvaluator(caFilesOrSystem: caFiles, settings: settings)
                    // The CAs given here are the account's: kept with it (the certificates, not the
                    // paths), so that later commands judge its server as this one does.
                    if !caFiles.isEmpty {
                        options.trustAnchorsPEM = try caFiles.flatMap { try Certificate.load(path: $0) }.map(\.pemEncoded).joined()
                    }
                    let setup = AccountSetup(
                        evaluator: evaluator, approvals: CertificateApprovals(database: database), accounts: Accounts(database: database),
                        secrets: KeyringSecretStore(), options: options, logger: logger)
                    var interaction = TerminalInteraction(
                        approvedFingerprint: approveCertificate.map(Certificates.Approve.normalized),
                        acceptedRedirects: Set(acceptRedirect), passwordFromStandardInput: passwordStdin,
                        browser: browser.map { $0.split(separator: " ").map(String.init) })
                    interaction.noBrowser = noBrowser
                    interaction.credentialsTo = Set(presentCredentialsTo.compactMap { try? Endpoint(url: $0).originKey })
                    interaction.hasCredentials = options.clientIdentity != nil || options.accessHeaders != nil
                    interaction.proxy = options.proxy
                    let account = try await setup.add(server: server, user: user, interaction: interaction)
                    print(SafeText.escaped("added account \(account.id): \(account.user) on \(account.server) (\(account.method)); \(Self.stored(account))"))
                } catch {
                    throw CommandFailure(error)
                }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List accounts (never their secrets).",
                usage: CommandHelp.usage("account list"),
                discussion: CommandHelp.discussion("account list"))
            @Flag(help: "JSON instead of text.") var json = false
            @OptionGroup var store: Certificates.StoreOptions
            @OptionGroup(title: "Log options") var logOptions: LogOptions

            func run() async throws {
                _ = try CommandContext.start(logOptions)
                do {
                    let accounts = try await Accounts(database: store.open()).list()
                    if json {
                        print(try JSONOutput.text(accounts))
                    } else if accounts.isEmpty {
                        print("no accounts")
                    } else {
                        for account in accounts {
                            print(
                                SafeText.escaped(
                                    "\(account.id)  \(account.label.map { "[\($0)]  " } ?? "")\(account.user)  \(account.server)  \(account.method)  added \(ISOTime.string(account.createdAt))"
                                        + (account.needsLogin ? "  (needs login)" : "")))
                        }
                    }
                } catch {
                    throw CommandFailure(error)
                }
            }
        }

        struct Rename: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "rename", abstract: "Give an account a label to name it by (or remove it with --clear).",
                usage: CommandHelp.usage("account rename"),
                discussion: CommandHelp.discussion(
                    "account rename", "A label is unique, 1 to 64 characters without spaces or '@'. Every account command then takes it instead of the id."))
            @Argument(help: Completions.accountHelp, completion: Completions.accounts) var account: String
            @Argument(help: "The new label.") var label: String?
            @Flag(help: "Remove the account's label.") var clear = false
            @OptionGroup var store: Certificates.StoreOptions
            @OptionGroup(title: "Log options") var logOptions: LogOptions

            func validate() throws {
                if clear == (label != nil) { throw ValidationError("Give a label, or --clear to remove the label.") }
            }

            func run() async throws {
                _ = try CommandContext.start(logOptions)
                do {
                    let accounts = try await Accounts(database: store.open())
                    let renamed = try await accounts.rename(id: try accounts.resolve(account).id, to: clear ? nil : label)
                    print(
                        SafeText.escaped("account \(renamed.id) (\(renamed.user) on \(renamed.server)): " + (renamed.label.map { "label \($0)" } ?? "no label"))
                    )
                } catch {
                    throw CommandFailure(error)
                }
            }
        }

        struct Logout: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "logout",
                abstract: "Log an account out: its tokens revoked at the server, its secrets removed from the keyring; the account stays.",
                usage: CommandHelp.usage("account logout"),
                discussion: CommandHelp.discussion(
                    "account logout",
                    """
                    The account keeps its server, user and the certificate chain reviewed for it; `vigil account login` brings \
                    its credentials back. Tokens are revoked as for `remove` (over a connection to the reviewed certificate only).
                    """))
            @Argument(help: Completions.accountHelp, completion: Completions.accounts) var account: String
            @OptionGroup var revocation: TokenRevocationOptions
            @OptionGroup var store: Certificates.StoreOptions
            @OptionGroup(title: "Log options") var logOptions: LogOptions

            func run() async throws {
                let (settings, logger) = try CommandContext.start(logOptions)
                do {
                    let database = try await store.open()
                    let id = try await Accounts(database: database).resolve(account).id
                    let result = try await AccountRemoval(accounts: Accounts(database: database), secrets: KeyringSecretStore()).logout(
                        id: id, revokingThrough: try revocation.check(database: database, settings: settings, logger: logger))
                    TokenRevocationOptions.report(result, done: "logged out", then: "; vigil account login brings it back")
                } catch {
                    throw CommandFailure(error)
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "remove",
                abstract: "Remove an account: its tokens revoked at the server, its row, its secrets in the keyring.",
                usage: CommandHelp.usage("account remove"),
                discussion: CommandHelp.discussion(
                    "account remove",
                    """
                    OAuth2 and OpenID Connect tokens are revoked first (RFC 7009) where the server names a revocation \
                    endpoint, over a connection whose certificate is the one reviewed for the account (a changed certificate \
                    gets no token; the removal goes on and says so). Then the account and every secret it has in the keyring. \
                    On a terminal it asks first (--yes does not); a script's removal is not asked.

                    Exit codes: 0 removed; 1 not confirmed (nothing removed); 2 error (unknown account, keyring, database).
                    """)
            )
            @Argument(help: Completions.accountHelp, completion: Completions.accounts) var id: String
            @Flag(name: [.customShort("y"), .long], help: "Remove without asking (on a terminal it asks first).") var yes = false
            @Flag(help: "Keep the certificate approvals of its server even when no other account uses it.") var keepApprovals = false
            @OptionGroup var revocation: TokenRevocationOptions
            @OptionGroup var store: Certificates.StoreOptions
            @OptionGroup(title: "Log options") var logOptions: LogOptions

            func run() async throws {
                let (settings, logger) = try CommandContext.start(logOptions)
                do {
                    let database = try await store.open()
                    let removal = AccountRemoval(accounts: Accounts(database: database), secrets: KeyringSecretStore())
                    let found = try await Accounts(database: database).resolve(self.id)
                    let id = found.id
                    // A person at a terminal confirms; nothing is removed otherwise.
                    if !yes, isatty(STDIN_FILENO) == 1 {
                        print(SafeText.escaped("Remove \(found.user) on \(found.server) (\(found.id)) and its secrets? [y/N] "), terminator: "")
                        fflush(nil)
                        // Ctrl-C at the question ends the command at once (the read cannot be cancelled).
                        guard Interruption.atPrompt({ readLine() })?.lowercased().hasPrefix("y") == true else {
                            print("Nothing was removed.")
                            throw ExitCode(ExitStatus.untrusted)
                        }
                    }
                    let result: AccountRemoval.Result
                    if let check = try revocation.check(database: database, settings: settings, logger: logger) {
                        result = try await removal.remove(id: id, revokingThrough: check)
                    } else {
                        result = try await removal.remove(id: id)
                    }
                    let account = result.account
                    TokenRevocationOptions.report(result, done: "removed account", then: "")
                    let leftOver = try await removal.revokeApprovalsLeftOver(
                        by: account, approvals: CertificateApprovals(database: database), keep: keepApprovals)
                    for approval in leftOver {
                        print(
                            SafeText.escaped(
                                "revoked approval \(approval.id ?? 0) of \(approval.host):\(approval.port) (\(approval.sha256)): no account uses that server any more (--keep-approvals keeps it)"
                            ))
                    }
                } catch let error as StoreError {
                    throw CommandFailure(error)
                } catch let error as SecretStoreError {
                    throw CommandFailure("the account was removed, its secret could not be: \(error)")
                } catch let error as CertificateError {
                    throw CommandFailure(error)
                }
            }
        }
    }
}
