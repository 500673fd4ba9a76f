import Foundation
import VigilAccounts
import VigilAuth
import VigilCertificates
import VigilHTTP
import VigilSecrets
package import VigilStore

/// Vigil's own client: ``VigilAccounts/AccountSetup`` exactly as `vigil account add` builds it (the
/// options from the settings, the approvals and accounts in the scenario's database, the keyring),
/// and ``VigilAccounts/AccountRemoval`` as `vigil account remove` uses it.
package struct VigilClient: SuiteClient {
    /// Vigil's own client; it has no state of its own.
    package init() {}

    /// Runs ``VigilAccounts/AccountSetup/add(server:user:interaction:)`` on the scenario's database; a thrown error
    /// becomes a classified failure.
    package func addAccount(_ context: SuiteClientContext) async -> SuiteClientResult {
        do {
            let database = try await VigilDatabase.open(path: context.databasePath)
            let options = Self.options(context)
            let setup = AccountSetup(
                evaluator: try Self.evaluator(context),
                approvals: CertificateApprovals(database: database), accounts: Accounts(database: database),
                secrets: context.secrets, options: options, logger: context.logger)
            return .added(try await setup.add(server: context.server, user: context.userName, interaction: context.user))
        } catch {
            return Self.classify(error)
        }
    }

    /// `vigil account check` with the scripted user to ask when the certificate changed.
    package func useAccount(_ account: Account, context: SuiteClientContext) async -> SuiteClientResult {
        do {
            let database = try await VigilDatabase.open(path: context.databasePath)
            let check = try Self.check(context, database: database)
            let report = try await check.connect(account, secrets: context.secrets, interaction: context.user)
            switch report.certificate {
            case .refused(let reasons):
                return .failed(.refused, code: AccountSetupError.Code.certificateRejected.description, reasons.map(\.message).joined(separator: " "))
            case .changed(let reason):
                return .failed(
                    .refused, code: AccountSetupError.Code.certificateRejected.description, reason + " The user did not approve it; nothing was sent.")
            case .unchanged, .renewed, .approvedAgain:
                break
            }
            if let moved = report.moved {
                // Never followed: reported, a move offered as a command.
                return .failed(.refused, code: AccountSetupError.Code.redirected.description, moved.text(accountID: account.id))
            }
            switch report.filesStatus {
            case 207? where report.downloadFailed:
                return .failed(
                    .error, code: AccountSetupError.Code.serverError.description,
                    "\(account.server) lists the files but answered a download with HTTP \(report.downloadStatus.map(String.init) ?? "nothing").")
            case 207?:
                return .added(account)
            case 401?, 403?:
                return .failed(
                    .error, code: AccountSetupError.Code.wrongCredentials.description, "\(account.server) refused the stored credentials: log in again.")
            default:
                return .failed(
                    .error, code: AccountSetupError.Code.notACloudServer.description,
                    "\(account.server) answered the files root with \(report.filesStatus.map(String.init) ?? "nothing").")
            }
        } catch {
            return Self.classify(error)
        }
    }

    /// `vigil account remove`: the tokens revoked first where the server offers it.
    package func removeAccount(_ account: Account, context: SuiteClientContext) async throws {
        let database = try await VigilDatabase.open(path: context.databasePath)
        var check = try Self.check(context, database: database)
        check.clientKeys = context.secrets
        _ = try await AccountRemoval(accounts: Accounts(database: database), secrets: context.secrets).remove(id: account.id, revokingThrough: check)
    }

    /// The options `vigil account add` would build from the scenario's settings, with the suite's
    /// timeouts and pinned names, and every exchange logged (redacted) for the secret scans.
    static func options(_ context: SuiteClientContext) -> AccountSetup.Options {
        var options = AccountSetup.Options(settings: context.settings)
        options.timeout = context.timeout
        options.browserTimeout = context.timeout * 2
        options.resolve = context.resolve
        options.logHTTPExchanges = true
        // Proxy passwords from the scenario's keyring (the suite's own Secret Service).
        options.proxy.credentials = ProxyCredentials(secrets: context.secrets).lookup
        if let files = context.clientCertificate, let certificate = FileManager.default.contents(atPath: files.certificate),
            let key = FileManager.default.contents(atPath: files.key)
        {
            options.clientIdentity = try? ClientIdentity.read(Array(certificate), key: Array(key))
        }
        if let text = context.accessHeaders {
            options.accessHeaders = try? AccessHeaders.parse(text)
        }
        options.credentialsOrigin = try? Endpoint(url: context.server)
        return options
    }

    /// The account check `vigil account check` and `remove` would use, with the same options.
    static func check(_ context: SuiteClientContext, database: VigilDatabase) throws -> AccountCheck {
        var check = AccountCheck(
            evaluator: try Self.evaluator(context), database: database,
            settings: context.settings, logger: context.logger)
        check.options = options(context)
        check.lockDirectory = context.stateDirectory + "/vigil/locks"
        return check
    }

    /// How a failure of account setup reads: refused on security grounds, an error reported, or
    /// something Vigil does not implement yet.
    static func classify(_ error: any Error) -> SuiteClientResult {
        switch error {
        case let error as AccountSetupError:
            switch error.code {
            case .certificateRejected, .redirected, .responseRejected, .invalidURL, .policy, .clientCertificate:
                // Refused by Vigil's own checks; a server that says no (wrong credentials) is an error reported.
                return .failed(.refused, code: error.code.description, error.reason)
            case .unsupportedMethod, .configuration, .noUsableMethod:
                return .failed(.notImplemented, code: error.code.description, error.reason)
            case .notACloudServer, .maintenance, .serverError, .keyringUnavailable, .noPassword, .duplicate, .wrongCredentials, .unavailable, .accessProxy,
                .loginExpired, .redirectNotRegistered:
                return .failed(.error, code: error.code.description, error.reason)
            default:
                // A code added later counts as refused until it is named here: never a silent pass.
                return .failed(.refused, code: error.code.description, error.reason)
            }
        case let error as HTTPError:
            let refused: Set<HTTPError.Code> = [.untrustedCertificate, .plainHTTPRefused]
            return .failed(refused.contains(error.code) ? .refused : .error, code: error.code.description, error.reason)
        case let error as CertificateError:
            return .failed(.error, code: "certificate-error", error.reason)
        case let error as StoreError:
            return .failed(.error, code: "store-error", error.reason)
        case let error as SecretStoreError:
            return .failed(.error, code: "keyring-error", "\(error)")
        default:
            return .failed(.error, code: "error", "\(error)")
        }
    }

    /// The scenario's trusted CAs, with the fixture's policy inputs (settings).
    static func evaluator(_ context: SuiteClientContext) throws -> TrustEvaluator {
        var configuration = TrustEvaluator.Configuration.caFiles(context.trustedCAFiles)
        if let system = context.systemStoreFiles {
            configuration.useSystemStore = true
            configuration.systemStoreFiles = system
        }
        configuration.applyPolicyInputs(from: context.settings)
        return try TrustEvaluator(configuration: configuration)
    }
}
