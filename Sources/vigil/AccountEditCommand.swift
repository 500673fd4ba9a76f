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
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Give an account a client certificate (mutual TLS) or access headers, replace them, or remove them.",
            usage: CommandHelp.usage("account edit"),
            discussion: CommandHelp.discussion(
                "account edit",
                """
                --client-certificate FILE replaces the account's client certificate after the same review as at setup \
                (refused when expired, without clientAuth, or with broken crypto); the old key leaves the keyring. \
                --no-client-certificate removes it. --access-headers-file FILE (`Name: value` lines: an access proxy's service \
                token) replaces the account's access headers, --no-access-headers removes them. --ca-file FILE (repeatable) \
                replaces the CA certificates the account trusts (kept with it since setup), --system-trust makes it trust the \
                system store again. Every change is audited.

                Exit codes: 0 changed; 1 refused; 2 error.
                """))
        @Argument(help: Completions.accountHelp, completion: Completions.accounts) var account: String
        @OptionGroup var clientCertificateOptions: ClientCertificateOptions
        @Flag(help: "Remove the account's client certificate and its key.") var noClientCertificate = false
        @OptionGroup var accessHeadersOptions: AccessHeadersOptions
        @Flag(help: "Remove the account's access headers.") var noAccessHeaders = false
        @Option(
            name: .customLong("ca-file"), help: "Trust only the CAs in this PEM file for this account from now on (repeatable).", completion: Completions.file)
        var caFiles: [String] = []
        @Flag(help: "Trust the system store for this account again (forget the CA certificates kept with it).") var systemTrust = false
        @OptionGroup var store: Vigil.Certificates.StoreOptions
        @OptionGroup(title: "Log options") var logOptions: LogOptions

        /// CA certificates the account will trust must verify the chain reviewed at setup: a leaf
        /// or the wrong CA given by mistake would make the next check report a change that never
        /// happened. Refused (exit 1, nothing changed) with what the judgement found.
        static func requireVerifying(_ account: Account, caFiles: [String], settings: Settings) throws {
            guard let chain = try account.reviewedChain(), !chain.isEmpty else { return }
            let evaluation = try TrustEvaluator(caFilesOrSystem: caFiles, settings: settings).evaluate(
                chain, for: try Endpoint(url: account.server).peerName)
            guard !evaluation.verdict.isTrusted else { return }
            let given = caFiles.joined(separator: ", ")
            // A certificate that is no CA (a server's own, given by mistake) is named first.
            let notCAs = try caFiles.flatMap { file in try Certificate.load(path: file).filter { !$0.isCA }.map { "\(file): \($0.subject)" } }
            throw CommandFailure(
                (notCAs.isEmpty
                    ? "" : "Not a CA certificate (a server's own certificate?): \(notCAs.joined(separator: "; ")). ")
                    + "The certificates in \(given) do not verify the chain reviewed for \(account.server): "
                    + evaluation.verdict.reasons.map(\.message).joined(separator: " ")
                    + " Give the CA that issued the server's certificate (not the server's own certificate), or review the server again with "
                    + "\(SuggestedCommand.line(["vigil", "account", "login", account.id])). Nothing was changed.",
                status: ExitStatus.untrusted)
        }

        func validate() throws {
            let certificate = noClientCertificate || clientCertificateOptions.clientCertificate != nil
            let headers = noAccessHeaders || accessHeadersOptions.accessHeadersFile != nil
            if noClientCertificate && clientCertificateOptions.clientCertificate != nil {
                throw ValidationError("Give --client-certificate or --no-client-certificate, not both.")
            }
            if noAccessHeaders && accessHeadersOptions.accessHeadersFile != nil {
                throw ValidationError("Give --access-headers-file or --no-access-headers, not both.")
            }
            if systemTrust && !caFiles.isEmpty { throw ValidationError("Give --ca-file or --system-trust, not both.") }
            if !certificate && !headers && caFiles.isEmpty && !systemTrust {
                throw ValidationError(
                    "Give --client-certificate FILE, --no-client-certificate, --access-headers-file FILE, --no-access-headers, --ca-file FILE or --system-trust."
                )
            }
        }

        func run() async throws {
            let (settings, _) = try CommandContext.start(logOptions)
            do {
                let accounts = try await Accounts(database: store.open())
                let found = try await accounts.resolve(account)
                if !caFiles.isEmpty { try Self.requireVerifying(found, caFiles: caFiles, settings: settings) }
                if !caFiles.isEmpty || systemTrust {
                    let pem = systemTrust ? nil : try caFiles.flatMap { try Certificate.load(path: $0) }.map(\.pemEncoded).joined()
                    let why = systemTrust ? "trusts the system store" : "trusts \(caFiles.count) CA file(s) given with account edit"
                    try await accounts.setTrustAnchors(id: found.id, pem: pem, because: why)
                    print(SafeText.escaped("account \(found.id): \(why)"))
                    if clientCertificateOptions.clientCertificate == nil, !noClientCertificate, accessHeadersOptions.accessHeadersFile == nil, !noAccessHeaders
                    {
                        return
                    }
                }
                let keyring = KeyringSecretStore()
                // Both read (and refused) before anything changes.
                let headers = try accessHeadersOptions.headers()
                let identity = try clientCertificateOptions.identity()
                if let refusals = identity?.refusals(), !refusals.isEmpty {
                    if let identity { print(ClientCertificateOptions.review(identity)) }
                    throw CommandFailure(
                        "The client certificate cannot be used: " + refusals.map(\.message).joined(separator: " ") + " Nothing was changed.",
                        status: ExitStatus.untrusted)
                }
                if let headers {
                    // The Secret is made in the closure; stored on the keyring's queue, never from the pool.
                    let text = headers.withText { Secret($0) }
                    try await keyring.store(text, for: SecretKey(account: found.secretAccount, kind: .accessHeaders))
                    _ = try await accounts.setAccessHeaderNames(
                        id: found.id, names: headers.names, because: "access headers \(headers.names.joined(separator: ", ")) given by the user")
                    print(SafeText.escaped("account \(found.id): access headers \(headers.names.joined(separator: ", ")); their values are in the keyring"))
                } else if noAccessHeaders {
                    _ = try await keyring.remove(SecretKey(account: found.secretAccount, kind: .accessHeaders))
                    _ = try await accounts.setAccessHeaderNames(id: found.id, names: nil, because: "the access headers were removed by the user")
                    print(SafeText.escaped("account \(found.id): no access headers; they left the keyring"))
                }
                guard noClientCertificate || identity != nil else { return }
                let key = try SecretKey(account: found.secretAccount, kind: .clientKey)
                guard let identity else {
                    _ = try await keyring.remove(key)
                    _ = try await accounts.setClientCertificate(id: found.id, pem: nil, because: "the client certificate was removed by the user")
                    print(SafeText.escaped("account \(found.id) (\(found.user) on \(found.server)): no client certificate; its key left the keyring"))
                    return
                }
                print(ClientCertificateOptions.review(identity))
                let refusals = identity.refusals()
                guard refusals.isEmpty else {
                    throw CommandFailure(
                        "The client certificate cannot be used: " + refusals.map(\.message).joined(separator: " ") + " Nothing was changed.",
                        status: ExitStatus.untrusted)
                }
                // The key first: a row naming a certificate whose key is not kept would stop the account.
                let storedForm = identity.key.withStoredForm { Secret($0) }
                try await keyring.store(storedForm, for: key)
                let pem = identity.chain.map(\.pemEncoded).joined()
                _ = try await accounts.setClientCertificate(
                    id: found.id, pem: pem, because: "client certificate \(identity.certificate.sha256Fingerprint) given by the user")
                print(
                    SafeText.escaped(
                        "account \(found.id) (\(found.user) on \(found.server)): client certificate \(identity.certificate.sha256Fingerprint); its key is in the keyring"
                    ))
            } catch {
                throw CommandFailure(error)
            }
        }
    }
}
