import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import VigilAccounts
import VigilCertificates
import VigilCommandLine
import VigilHTTP
import VigilLogging
import VigilSecrets
import VigilSettings
import VigilStore
import VigilText

extension Vigil.AccountCommand {
    /// `vigil account check ID|--all`: each account's server judged against the chain reviewed at
    /// setup, then its files root read with the stored credentials.
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check accounts: the server certificate against the chain reviewed at setup, then the stored credentials.",
            usage: CommandHelp.usage("account check"),
            discussion: CommandHelp.discussion(
                "account check",
                """
                For each account: a TLS handshake; what no approval can make safe is refused; the extended-validation \
                rule, when set, must hold; the reviewed leaf passes; a changed leaf passes only when \
                connection.renewed-certificate-acceptance-rule accepts it (the stored chain is then replaced and the change \
                audited with the rule). Any other change is shown for review: approved at the terminal or with \
                --approve-certificate, it replaces the stored chain; otherwise nothing is sent. Then the user's files root is \
                read with the credentials in the keyring (PROPFIND), through a connection that accepts only the leaf just \
                judged. With --certificate-only, the handshake alone. A redirect of the files root is never followed: a \
                permanent one (301, 308) to the account's files under another https server is reported as a move, that \
                server's certificate reviewed (a handshake, nothing sent), with the `vigil account move ID URL` that \
                carries the account there; a temporary one (302, 307) is reported only.

                Exit codes: 0 every account works, 1 a certificate changed or was refused, the server moved or redirects, or the server refused the stored \
                credentials (log in again), 2 error (unreachable server, keyring, database), 75 a token account's login ran out \
                (LOGIN-EXPIRED: vigil account login ID) or a server is unavailable for now.
                """)
        )
        @Argument(help: Completions.accountHelp, completion: Completions.accounts) var id: String?
        @Flag(help: "Check every account.") var all = false
        @Flag(help: "The certificate only: a TLS handshake, no request, no credential.") var certificateOnly = false
        @Option(help: "Approve a changed certificate with this SHA-256 fingerprint (hex, colons optional).") var approveCertificate: String?
        @Flag(help: "JSON instead of text.") var json = false
        @Flag(
            help:
                "A server that cannot be reached (no name, no route, refused, no answer: nothing reached it) is UNREACHABLE, a warning that does not count for the exit code: for a timer on a machine off the VPN."
        )
        var tolerateUnreachable = false
        @Option(
            name: .customLong("ca-file"), help: "Trust only the CAs in this PEM file instead of the system store (repeatable).", completion: Completions.file)
        var caFiles: [String] = []
        @OptionGroup var resolveOptions: ResolveOptions
        @OptionGroup var store: Vigil.Certificates.StoreOptions
        @OptionGroup(title: "Log options") var logOptions: LogOptions

        func validate() throws {
            if id == nil && !all { throw ValidationError("Give an account id (see vigil account list), or --all to check every account.") }
            if id != nil && all { throw ValidationError("Give an account id or --all, not both.") }
            try Vigil.Certificates.Approve.validate(approving: approveCertificate)
        }

        /// One account's line of the report.
        struct Row: Encodable {
            var id: String
            var server: String
            var user: String
            /// `ok`, `changed`, `refused`, `needs-login`, `moved` (a permanent redirect to the account's
            /// files under another server: `vigil account move` offered), `redirected` (any other
            /// redirect, not followed), `login-expired` (a token account's refresh token expired, was
            /// revoked or cannot be presented again: `vigil account login ID`), `unavailable` (a
            /// transient outage outlasted the retries), `unreachable` (nothing reached the server),
            /// `keyring-unavailable` (locked, missing or no Secret Service: nothing was sent) or `error`.
            var status: String
            /// `unchanged`, `renewed`, `approved-again`, `changed` or `refused`; nil when the check failed before.
            var certificate: String?
            var message: String
            /// The refusal's reason codes (`revoked`, `tls-version`, `pin-mismatch`...); empty otherwise.
            var reasons: [String] = []
            var filesStatus: Int?
            var downloadStatus: Int? = nil
            /// The account's client certificate expires within client-certificate.expiry-warning-days.
            var clientCertificateExpires = false
            /// The way to the server: the proxies tried in order (`direct` for none) and where the
            /// choice came from; nil when it could not be decided (the error says why).
            var via: Via?
            /// The files root's redirect, never followed.
            var moved: Moved? = nil
            /// OAuth2 and OpenID Connect: when the access token expires (ISO 8601), and whether it
            /// can be refreshed then (false: the provider issued no refresh token; log in again).
            var tokenExpiresAt: String? = nil
            var refreshable: Bool? = nil
        }

        /// `moved` of a row: the redirect, the server the account would move to, and its certificate.
        struct Moved: Encodable {
            var status: Int
            var location: String
            var permanent: Bool
            /// The URL for `vigil account move`; nil when no move is offered.
            var newServer: String?
            /// The new server's certificate: trusted or not, and its SHA-256 fingerprint.
            var certificateTrusted: Bool?
            var sha256: String?
            /// The command that carries the account there, quoted for a shell (nil when none is
            /// offered, or when the new server's URL cannot be shown safely).
            var command: String?
            /// The same command as its arguments, for a program that runs it without a shell.
            var argv: [String]?
        }

        /// `via` of a row: `{"proxies": ["http://proxy:3128"], "source": "https_proxy", "autoconfigAnswer": ...}`.
        struct Via: Encodable {
            /// The way taken (one entry), or, when no connection was made, the ways planned in order.
            var proxies: [String]
            var source: String
            var autoconfigAnswer: String?
            /// Whether `proxies` is the way the check's connection went (else the plan).
            var taken: Bool
            /// The proxies tried first that could not be reached.
            var notReached: [String]?
            var text: String {
                proxies.joined(separator: ", then ") + " (\(source)" + (autoconfigAnswer.map { ": \"\($0)\"" } ?? "")
                    + (notReached.map { "; not reached: " + $0.joined(separator: ", ") } ?? "") + (taken ? ")" : "; planned, no connection was made)")
            }
        }

        func run() async throws {
            EarlyWork.transfers()
            let (settings, logger) = try CommandContext.start(logOptions)
            let database = try await store.open()
            let accounts: [Account]
            do {
                if let id { accounts = [try await Accounts(database: database).resolve(id)] } else { accounts = try await Accounts(database: database).list() }
            } catch {
                throw CommandFailure(error)
            }
            let evaluator: TrustEvaluator
            do { evaluator = try TrustEvaluator(caFilesOrSystem: caFiles, settings: settings) } catch let error as CertificateError {
                throw CommandFailure(error)
            }
            var check = AccountCheck(evaluator: evaluator, database: database, settings: settings, logger: logger)
            check.options.resolve = resolveOptions.pins
            check.lockDirectory = StatePaths.locks
            check.clientKeys = KeyringSecretStore()
            let warningDays = settings[.clientCertificateExpiryWarningDays] ?? 30
            let interaction = TerminalInteraction(
                approvedFingerprint: approveCertificate.map(Vigil.Certificates.Approve.normalized),
                acceptedRedirects: [], passwordFromStandardInput: false, browser: nil)
            var rows: [Row] = []
            // At a terminal a changed certificate is reviewed and asked about; elsewhere (the
            // journal, cron, a pipe) each account is one line with its priority, and the command
            // that shows more (--approve-certificate still approves).
            let asking = !json && (approveCertificate != nil || (interaction.interactive && isatty(STDOUT_FILENO) == 1 && !JournalStream.isStandardOutput))
            for account in accounts {
                var row = await Self.row(for: account, check: check, certificateOnly: certificateOnly, interaction: asking ? interaction : nil)
                // The path the check's connection took, and why; the plan only when none was made.
                if let taken = check.options.proxy.taken(toward: account.server) {
                    row.via = Via(
                        proxies: [taken.proxy ?? "direct"], source: taken.source, autoconfigAnswer: taken.autoconfigAnswer, taken: true,
                        notReached: taken.notReached.isEmpty ? nil : taken.notReached)
                } else if let route = try? await check.options.proxy.choosing(for: account.server) {
                    row.via = Via(proxies: route.shown, source: route.source, autoconfigAnswer: route.autoconfigAnswer, taken: false)
                }
                if let warning = Self.clientCertificateWarning(account, days: warningDays) {
                    row.message = Self.joined(row.message, warning)
                    row.clientCertificateExpires = true
                }
                // Away from a terminal, one line: the way taken and the command that shows more.
                if !asking, !json {
                    if let via = row.via { row.message = Self.joined(row.message, "via " + via.text) }
                    if row.status != "ok" {
                        row.message = Self.joined(row.message, "more, at a terminal: " + SuggestedCommand.line(["vigil", "account", "check", account.id]))
                    }
                }
                if !json {
                    // Under the vigil-check unit, each line carries its priority for the journal.
                    let priority = Self.priority(row)
                    print(
                        JournalStream.line(
                            SafeText.escaped("\(account.id) \(account.user) on \(account.server): \(row.status.uppercased()): \(row.message)"), priority))
                    if asking, let via = row.via { print(JournalStream.line("  via: " + SafeText.escaped(via.text), .info)) }
                }
                // The administrator's log file keeps every account that does not work, with why.
                if row.status != "ok" {
                    logger.privacy.log(
                        level: row.status == "error" ? .error : .warning,
                        "Account check: \(account.user, hashed: true) on \(account.server, hashed: true): \(public: row.status.uppercased()): \(row.message)",
                        metadata: ["tags": "account,\(StandardErrorSink.outcomeTag)", "reasons": .public(row.reasons.joined(separator: ","))])
                }
                rows.append(row)
            }
            if json { print(try JSONOutput.text(rows)) }
            if accounts.isEmpty, !json { print("No accounts.") }
            // An unreachable server is an error (exit 2) unless tolerated (a warning, not counted).
            let counted = rows.filter { !(tolerateUnreachable && $0.status == "unreachable") }
            let errors: Set<String> = ["error", "keyring-unavailable", "unreachable"]
            if counted.contains(where: { errors.contains($0.status) }) { throw ExitCode(ExitStatus.error) }
            let later: Set<String> = ["unavailable", "login-expired"]
            if counted.contains(where: { $0.status != "ok" && !later.contains($0.status) }) { throw ExitCode(ExitStatus.untrusted) }
            if counted.contains(where: { later.contains($0.status) }) { throw ExitCode(ExitStatus.temporaryFailure) }
        }

        /// `message; more`, without a full stop before the semicolon.
        static func joined(_ message: String, _ more: String) -> String {
            var message = message
            while message.hasSuffix(".") { message.removeLast() }
            return message.isEmpty ? more : message + "; " + more
        }

        /// How much a row needs a person: a refusal or an error now, something to renew soon, or all well.
        static func priority(_ row: Row) -> JournalStream.Priority {
            switch row.status {
            case "ok": return row.clientCertificateExpires || row.refreshable == false ? .warning : .info
            // A login to renew, a server down or out of reach for now: a person will be needed.
            case "needs-login", "login-expired", "unavailable", "unreachable": return .warning
            // A certificate changed or refused, a server that moved or redirects, an error: now.
            default: return .error
            }
        }

        /// A client certificate that expires within `days` (client-certificate.expiry-warning-days),
        /// in words; nil when none does. One that expired already fails the check itself.
        static func clientCertificateWarning(_ account: Account, days: Int, now: Date = Date()) -> String? {
            guard let pem = account.clientCertificatePEM, let certificate = try? Certificate.parsePEM(pem).first, let notAfter = certificate.notAfter,
                notAfter > now
            else { return nil }
            let left = Int(notAfter.timeIntervalSince(now) / 86_400)
            guard left < days else { return nil }
            return
                "the client certificate expires in \(left) day\(left == 1 ? "" : "s") (\(ISOTime.string(notAfter))); give a new one with \(SuggestedCommand.line(["vigil", "account", "edit", account.id, "--client-certificate", "FILE"]))"
        }

        static func row(for account: Account, check: AccountCheck, certificateOnly: Bool, interaction: TerminalInteraction?) async -> Row {
            var row = Row(id: account.id, server: account.server, user: account.user, status: "error", certificate: nil, message: "", filesStatus: nil)
            do {
                let report =
                    certificateOnly
                    ? AccountCheck.Report(certificate: try await check.check(account), filesStatus: nil)
                    : try await check.connect(account, secrets: KeyringSecretStore(), interaction: interaction)
                row.filesStatus = report.filesStatus
                row.downloadStatus = report.downloadStatus
                // Read again: a refresh during the check moved the expiry.
                let current = (try? await check.accounts.list().first { $0.id == account.id }) ?? account
                if current.tokenExpiresAt != nil || current.noRefreshToken {
                    row.tokenExpiresAt = current.tokenExpiresAt.map(ISOTime.string)
                    row.refreshable = !current.noRefreshToken
                }
                switch report.certificate {
                case .unchanged: (row.certificate, row.message) = ("unchanged", "the certificate reviewed at setup")
                case .renewed(let rule):
                    (row.certificate, row.message) = (
                        "renewed", "a renewed certificate, accepted by the rule \(rule); the stored chain was replaced (see the audit)"
                    )
                case .approvedAgain:
                    (row.certificate, row.message) = ("approved-again", "a changed certificate, approved again; the stored chain was replaced (see the audit)")
                case .changed(let reason): (row.certificate, row.status, row.message) = ("changed", "changed", reason)
                case .refused(let reasons):
                    (row.certificate, row.status, row.message) = ("refused", "refused", reasons.map(\.message).joined(separator: " "))
                    row.reasons = reasons.map(\.code.rawValue)
                }
                guard report.certificate.isAcceptable else { return row }
                if let moved = report.moved {
                    row.status = moved.isMove ? "moved" : "redirected"
                    row.message += "; " + moved.text(accountID: account.id)
                    row.moved = Moved(
                        status: moved.status, location: moved.location, permanent: moved.isPermanent, newServer: moved.newServer,
                        certificateTrusted: moved.review?.trusted, sha256: moved.review?.sha256,
                        command: moved.command(accountID: account.id)?.line, argv: moved.command(accountID: account.id)?.arguments)
                } else if let status = report.filesStatus {
                    switch status {
                    case 207 where report.downloadFailed:
                        row.status = "error"
                        row.message +=
                            "; the files are listed but the download of \(SafeText.escaped(report.downloaded ?? "a file")) answered HTTP \(report.downloadStatus ?? 0)"
                    case 207:
                        row.status = "ok"
                        row.message +=
                            report.downloaded == nil ? "; the stored credentials open the files" : "; the stored credentials list and download the files"
                    case 401, 403:
                        row.status = "needs-login"
                        row.message += "; the server refused the stored credentials (HTTP \(status)): log in again"
                    case let status where check.options.retriedStatuses.contains(status):
                        row.status = "unavailable"
                        row.message +=
                            "; the files root still answered HTTP \(status) after \(check.options.retryDelays.count) tries again: the server is unavailable for now"
                    default:
                        row.status = "error"
                        row.message += "; the files root answered HTTP \(status)"
                    }
                } else {
                    row.status = "ok"
                }
                if current.noRefreshToken, row.status == "ok" {
                    row.message +=
                        "; the provider issued no refresh token: the access token expires \(current.tokenExpiresAt.map(ISOTime.string) ?? "at a time not given"), and a new login is needed then (\(SuggestedCommand.line(["vigil", "account", "login", account.id])))"
                }
            } catch {
                // A refusal by the server (mutual TLS) or by a proxy that asks who you are: exit 1,
                // as inspect and docs/cli.md say.
                let refusing: [HTTPError.Code] = [
                    .clientCertificateRequired, .clientCertificateRefused, .proxyAuthenticationRequired, .proxyAuthenticationRefused,
                ]
                let clientRefused = (error as? HTTPError).map { refusing.contains($0.code) } ?? false
                switch clientRefused ? .clientCertificate : (error as? AccountSetupError)?.code {
                case .redirected?, .clientCertificate?, .accessProxy?: row.status = "refused"
                case .unavailable?: row.status = "unavailable"
                // A refresh refused, or an account already marked: as a 401 to the stored credentials.
                case .wrongCredentials?: row.status = "needs-login"
                // A token account whose login ran out: log in again (exit 75, nothing deleted).
                case .loginExpired?: row.status = "login-expired"
                // A keyring locked, missing or refusing: nothing was sent (exit 2, as an error).
                case .keyringUnavailable?: row.status = "keyring-unavailable"
                default:
                    // Nothing reached the server (no name, no route, refused, no answer, no proxy).
                    if let error = error as? HTTPError, error.reachedNothing {
                        row.status = "unreachable"
                    } else {
                        row.status = error is SecretStoreError ? "keyring-unavailable" : "error"
                    }
                }
                row.message = ExitStatus.described(error).message
                // A server out of reach hides nothing else: a locked keyring needs a person whether
                // or not the server answers (asked without reading a secret or showing a prompt).
                if row.status == "unreachable", !certificateOnly, !account.needsLogin,
                    await Vigil.AccountCommand.Show.keyringState(of: account).state == "locked"
                {
                    row.status = "keyring-unavailable"
                    row.message =
                        ExitStatus.described(
                            SecretStoreError(.locked, "it holds the credentials of \(account.secretAccount), but nobody unlocked it in this session")
                        )
                        .message + " Nothing was sent: the server could not be reached either: " + row.message
                }
            }
            return row
        }
    }
}
