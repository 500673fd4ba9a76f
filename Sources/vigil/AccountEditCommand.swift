import ArgumentParser
import Foundation
import VigilCertificates
import VigilCore
import VigilLogging
import VigilSecrets
import VigilStore

extension Vigil.AccountCommand {
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit", abstract: "Give an account a client certificate (mutual TLS), replace it, or remove it.",
            discussion: """
                --client-certificate FILE replaces the account's client certificate after the same review as at setup
                (refused when expired, without clientAuth, or with broken crypto); the old key leaves the keyring.
                --no-client-certificate removes it. The change is audited. Exit codes: 0 changed; 1 refused; 2 error.
                """)
        @Argument(help: "The account: its id, a unique id prefix, its label or user@host (see list).") var account: String
        @OptionGroup var clientCertificateOptions: ClientCertificateOptions
        @Flag(help: "Remove the account's client certificate and its key.") var noClientCertificate = false
        @OptionGroup var store: Vigil.Certificates.StoreOptions
        @OptionGroup var logOptions: LogOptions

        func validate() throws {
            if noClientCertificate == (clientCertificateOptions.clientCertificate != nil) {
                throw ValidationError("Give --client-certificate FILE, or --no-client-certificate.")
            }
        }

        func run() async throws {
            _ = CommandContext.start(logOptions)
            do {
                let accounts = Accounts(database: store.open())
                let found = try accounts.resolve(account)
                let keyring = KeyringSecretStore()
                let key = try SecretKey(account: found.secretAccount, kind: .clientKey)
                guard let identity = try clientCertificateOptions.identity() else {
                    _ = try keyring.remove(key)
                    _ = try accounts.setClientCertificate(id: found.id, pem: nil, because: "the client certificate was removed by the user")
                    print(SafeText.escaped("account \(found.id) (\(found.user) on \(found.server)): no client certificate; its key left the keyring"))
                    return
                }
                print(ClientCertificateOptions.review(identity))
                let refusals = identity.refusals()
                guard refusals.isEmpty else {
                    ExitStatus.fail(
                        "The client certificate cannot be used: " + refusals.map(\.message).joined(separator: " ") + " Nothing was changed.",
                        status: ExitStatus.untrusted)
                }
                // The key first: a row naming a certificate whose key is not kept would stop the account.
                try identity.key.withPEM { try keyring.store(Secret($0), for: key) }
                let pem = identity.chain.map(\.pemEncoded).joined()
                _ = try accounts.setClientCertificate(
                    id: found.id, pem: pem, because: "client certificate \(identity.certificate.sha256Fingerprint) given by the user")
                print(
                    SafeText.escaped(
                        "account \(found.id) (\(found.user) on \(found.server)): client certificate \(identity.certificate.sha256Fingerprint); its key is in the keyring"
                    ))
            } catch {
                ExitStatus.fail(error)
            }
        }
    }
}
