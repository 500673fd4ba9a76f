import ArgumentParser
import FoundationEssentials
import Glibc
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
    /// `vigil account show ID`: the account and the chain the user reviewed when adding it.
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show an account, its status and token expiry, and the certificate chain it was set up with (never a secret).",
            usage: CommandHelp.usage("account show"),
            discussion: CommandHelp.discussion(
                "account show",
                "The chain is summarized as stored at setup, judged now against --ca-file (or the system store). Exit codes: 0 shown, 2 unknown id or unreadable database."
            )
        )
        @Argument(help: Completions.accountHelp, completion: Completions.accounts) var id: String
        @Option(name: .customLong("ca-file"), help: "Judge the stored chain against only these CAs (repeatable).", completion: Completions.file) var caFiles:
            [String] = []
        @Flag(help: "JSON instead of text.") var json = false
        @OptionGroup var store: Vigil.Certificates.StoreOptions
        @OptionGroup(title: "Log options") var logOptions: LogOptions

        func run() async throws {
            let (settings, _) = try CommandContext.start(logOptions)
            do {
                let database = try await store.open()
                let account = try await Accounts(database: database).resolve(id)
                // A damaged stored chain is said as such below, never shown as a missing one.
                var damage: String?
                let chain: [Certificate]
                do { chain = try account.reviewedChain() ?? [] } catch let error as StoreError {
                    chain = []
                    damage = error.reason
                }
                // The same for the client certificate: damaged is never "none".
                var clientDamage: String?
                let clientReview: ClientCertificateReview?
                do { clientReview = try account.clientCertificate().map { ClientCertificateReview(chain: $0) } } catch let error as StoreError {
                    clientReview = nil
                    clientDamage = error.reason
                }
                let endpoint = URLComponents(string: account.server)
                let peer = endpoint?.host.map { PeerName(host: $0.trimming(charactersIn: "[]")) }
                let anchors = try account.trustAnchors()
                let evaluator = try StoredChainReview.evaluator(caFiles: caFiles, settings: settings, anchors: anchors)
                // What the keyring holds for it, asked without reading a secret or an unlock prompt.
                let keyring = account.needsLogin ? nil : await Self.keyringState(of: account)
                if json {
                    let evaluation = chain.isEmpty ? nil : evaluator.evaluate(chain, for: peer)
                    print(
                        try JSONOutput.text(
                            Shown(
                                account: account, reviewedChain: evaluation.map { $0.summaries(of: chain) } ?? [], clientCertificate: clientReview,
                                damaged: damage == nil && clientDamage == nil
                                    ? nil : [damage.map { _ in "reviewedChain" }, clientDamage.map { _ in "clientCertificate" }].compactMap { $0 },
                                keyring: keyring?.state)))
                    return
                }
                print(SafeText.escaped("\(account.id)  \(account.user)  \(account.server)  \(account.method)  added \(ISOTime.string(account.createdAt))"))
                if let label = account.label { print(SafeText.escaped("label: \(label)")) }
                // Ready only when the chain reviewed at setup is still trusted, or approved for this
                // host and port, by the user or in advance by the administrator
                // (connection.approved-certificates), as account check asks: never "ready" above UNTRUSTED.
                var approved = false
                if let leaf = chain.first, let server = try? Endpoint(url: account.server) {
                    let leaves = try await CertificateApprovals(database: database).leaves(
                        for: [server], preApproved: PreApprovedCertificates(settingValues: settings[.approvedCertificates] ?? []))
                    approved = leaves.source(of: leaf, at: server) != nil
                }
                let judged = chain.isEmpty ? nil : evaluator.evaluate(chain, for: peer)
                // An approval holds only for what an approval can make safe (ApprovalRule).
                let trusted = judged.map { $0.verdict.isTrusted || (approved && ApprovalRule.refusals($0, sent: chain).isEmpty) } ?? (damage == nil)
                print(
                    clientDamage != nil
                        ? "status: DAMAGED: the client certificate kept with the account cannot be read back (below): \(SuggestedCommand.line(["vigil", "account", "edit", account.id, "--client-certificate", "FILE"]))"
                            + (trusted ? "" : "; and REVIEW NEEDED: the reviewed certificate is not trusted now (below)")
                        : account.needsLogin
                            ? "status: NEEDS LOGIN (logged out, or the server refused the stored credentials): \(SuggestedCommand.line(["vigil", "account", "login", account.id]))"
                            : keyring?.status.map { "status: \($0)" }
                                ?? (trusted
                                    ? "status: ready"
                                    : "status: REVIEW NEEDED: the reviewed certificate is not trusted now (below); give its CA with \(SuggestedCommand.line(["vigil", "account", "edit", account.id, "--ca-file", "FILE"])), or approve it with vigil certificates approve")
                )
                if !trusted, keyring?.status != nil, clientDamage == nil {
                    print("and REVIEW NEEDED: the reviewed certificate is not trusted now (below)")
                }
                if let anchors {
                    print(
                        SafeText.escaped(
                            "trusts: \(anchors.map(\.subject).joined(separator: "; ")) (the CA certificates given at setup, kept with the account)"))
                }
                if account.needsLogin {
                    // Logged out (no secret left) or refused: the keyring is not claimed to hold anything.
                } else if account.method == "com.nextcloud.login-flow-v2" {
                    // Login Flow v2 gives an app password (sent as Basic), not tokens.
                    print(
                        "app password: \(keyring?.words ?? "in the keyring") (from Nextcloud's Login Flow v2, sent as Basic; revoked at the server on removal)")
                } else if account.method != "com.owncloud.basicauth" {
                    let then =
                        account.noRefreshToken
                        ? "log in again: \(SuggestedCommand.line(["vigil", "account", "login", account.id]))" : "refreshed on the next use"
                    let expiry =
                        account.tokenExpiresAt.map { date in
                            ISOTime.string(date) + (date < Date() ? " (expired; \(then))" : " (in \(Int(date.timeIntervalSinceNow / 60)) min)")
                        } ?? "unknown"
                    print(
                        SafeText.escaped(
                            "tokens: \(keyring?.words ?? "in the keyring"); access token expires \(expiry); client \(account.clientID ?? "unknown")"
                                + (account.revocationEndpoint == nil ? "; the server names no revocation endpoint" : "; revoked at the server on removal")))
                    if account.noRefreshToken {
                        print(
                            "refresh: the provider issued no refresh token; when the access token expires, a new login is needed (\(SuggestedCommand.line(["vigil", "account", "login", account.id])))"
                        )
                    }
                } else {
                    print("password: \(keyring?.words ?? "in the keyring")")
                }
                if let names = account.accessHeaderNames {
                    print(
                        SafeText.escaped(
                            "access headers: \(names.replacing(",", with: ", ")) (values in the keyring; sent to \(account.server) only)"))
                }
                if let clientDamage {
                    print(SafeText.escaped("client certificate: DAMAGED: \(clientDamage)"))
                }
                if let review = clientReview {
                    print(
                        SafeText.escaped(
                            "client certificate: \(review.subject), issued by \(review.issuer), valid to \(review.notAfter) (\(review.daysLeft) days left), \(review.key), SHA-256 \(review.sha256); its key in the keyring"
                        ))
                }
                if let damage {
                    print(
                        SafeText.escaped(
                            "reviewed chain: DAMAGED: \(damage) \(SuggestedCommand.line(["vigil", "account", "login", account.id])) reviews the server's certificate again."
                        ))
                    return
                }
                guard !chain.isEmpty else {
                    print("no reviewed chain is stored (the account predates it)")
                    return
                }
                print("Reviewed chain, as stored at setup and judged now:")
                print(
                    try StoredChainReview.text(
                        chain, kind: "account", label: account.server, peer: peer, caFiles: caFiles, settings: settings, anchors: anchors, approved: approved),
                    terminator: "")
            } catch {
                throw CommandFailure(error)
            }
        }

        struct Shown: Encodable {
            var account: Account
            var reviewedChain: [CertificateSummary]
            /// The account's client certificate (mutual TLS), as reviewed; absent when none (or damaged).
            var clientCertificate: ClientCertificateReview?
            /// What is stored and cannot be read back (`reviewedChain`, `clientCertificate`); absent when nothing is.
            var damaged: [String]?
            /// What the keyring holds for the account: `stored`, `locked`, `missing` or `unavailable`
            /// (no Secret Service answers); absent when the account is logged out.
            var keyring: String?
        }

        /// The keyring's state for the account's credentials, asked without reading a secret or
        /// showing an unlock prompt; `status` is what the status line says instead of "ready".
        static func keyringState(of account: Account) async -> (state: String, status: String?, words: String) {
            let keys = KeyringSecretStore()
            let login = SuggestedCommand.line(["vigil", "account", "login", account.id])
            do {
                var found = SecretState.missing
                for kind in [SecretKey.Kind.password, .accessToken, .refreshToken] where found == .missing {
                    found = try await keys.state(of: SecretKey(account: account.secretAccount, kind: kind))
                }
                switch found {
                case .stored: return ("stored", nil, "in the keyring")
                case .locked:
                    return (
                        "locked", "KEYRING LOCKED: its credentials are in a keyring nobody unlocked in this session; nothing can be sent until it is unlocked",
                        "in the keyring, which is locked"
                    )
                case .missing:
                    return ("missing", "NEEDS LOGIN: the keyring holds no credentials for it (removed outside Vigil?): \(login)", "not in the keyring")
                }
            } catch let error as SecretStoreError {
                return (
                    "unavailable", "KEYRING UNAVAILABLE: \(error.situation): nothing can be sent until a Secret Service answers", "unknown (\(error.situation))"
                )
            } catch {
                return ("unavailable", "KEYRING UNAVAILABLE: \(error)", "unknown")
            }
        }
    }
}
