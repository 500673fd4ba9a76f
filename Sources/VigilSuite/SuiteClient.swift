public import Foundation
public import Logging
public import VigilHTTP
public import VigilSecrets
public import VigilSettings
public import VigilStore

/// The client a scenario is played against. ``VigilClient`` is Vigil's own account setup; tests
/// plug in clients that misbehave on purpose, to prove the suite catches them.
public protocol SuiteClient: Sendable {
    /// Adds the account at `context.server` for `context.user`, answering questions through
    /// `context.user`'s script; never throws: a failure is part of the result.
    func addAccount(_ context: SuiteClientContext) async -> SuiteClientResult
    /// Removes the account added (its row and every secret).
    func removeAccount(_ account: Account, context: SuiteClientContext) async throws
    /// Uses an account the user already has (`vigil account check`): the server's certificate
    /// judged against the chain reviewed at setup, then the stored credentials; never throws. The
    /// result's account is set when the credentials opened the user's files.
    func useAccount(_ account: Account, context: SuiteClientContext) async -> SuiteClientResult
    /// Whether the outcome is read from the journal alone (an external client, whose account
    /// store, keyring and logs the suite cannot see): ``ScenarioJudge/judgeByJournal(_:)``.
    var judgesByJournal: Bool { get }
}

extension SuiteClient {
    /// False: the default client is judged on its store, keyring and logs too.
    public var judgesByJournal: Bool { false }

    /// Fails as `not-implemented`: the client cannot use an existing account.
    public func useAccount(_ account: Account, context: SuiteClientContext) async -> SuiteClientResult {
        .failed(.notImplemented, code: "not-implemented", "This client cannot use an existing account.")
    }
}

/// Everything a client gets for one scenario: private directories, its settings, the keyring,
/// a trace-level logger writing into the scenario's state directory, and the scripted user.
public struct SuiteClientContext: Sendable {
    /// Where account setup starts.
    public var server: String
    /// The account's user name.
    public var userName: String
    /// The scripted user: answers questions, types the password, drives the browser stand-in.
    public var user: ScriptedUser
    /// The scenario's settings, as the client loads them.
    public var settings: Settings
    /// The CA file the browser stand-in trusts (the test PKI's root).
    public var caFile: String
    /// The CA files the client trusts (the fixture's `client.trust`; by default the test PKI's root).
    public var trustedCAFiles: [String]
    /// The roots of the machine's trust store the scenario plays (the fixture's
    /// `client.systemTrust`: an administrator's added root among them); nil: the machine's own.
    public var systemStoreFiles: [String]? = nil
    /// Those CA files (and the played store's roots) as one PEM bundle (what an external client is given).
    public var trustedCABundle: Data {
        (trustedCAFiles + (systemStoreFiles ?? [])).compactMap { FileManager.default.contents(atPath: $0) }.reduce(Data(), +)
    }
    /// The scenario's database file (under its data directory).
    public var databasePath: String
    /// The scenario's data, config and state directories (`XDG_*_HOME` for the client).
    public var dataDirectory: String
    /// The scenario's config directory.
    public var configDirectory: String
    /// The scenario's state directory (the logger writes there).
    public var stateDirectory: String
    /// The keyring.
    public var secrets: any SecretStore
    /// A trace-level logger writing into the state directory.
    public var logger: Logger
    /// Each connection and answer; the whole scenario has a multiple of it.
    public var timeout: Duration
    /// Names pinned to the simulated hosts (`HOST:PORT:ADDRESS`, curl's `--resolve`).
    public var resolve: [HostResolution] = []
    /// In the suite's network namespace: the resolver file an external client is run with (its
    /// scenario's name server) and the file it is bound over.
    public var resolver: (file: String, target: String)?
    /// Which run of a scenario this is: the only one, or, for a scenario whose premise is an
    /// account set up before, the external client's setup run or its later (judged) run.
    public var phase: Phase = .only

    /// Which run of a scenario a client is in.
    public enum Phase: Sendable {
        /// A scenario with no premise (or Vigil's own client, whose account is seeded).
        case only
        /// An external client's run against the server as it was at setup.
        case setup
        /// Its run against the scenario's server, with what the setup run left.
        case later
    }
    /// Mutual TLS: the client certificate and key files the user gives the account (PEM); nil: none.
    public var clientCertificate: (certificate: String, key: String)?
    /// An access proxy's service token as an access headers file's text (`Name: value` lines); nil: none.
    public var accessHeaders: String?
    /// Waits until every connection to the simulated hosts is closed, at most `grace`, then cuts
    /// the rest; returns how many were cut. An external client calls it once its processes are
    /// gone, so that the journal is read only when nothing can reach the hosts any more.
    public var settle: @Sendable (Duration) async -> Int = { _ in 0 }
}

/// How a client's attempt ended.
public struct SuiteClientResult: Sendable {
    /// How a failure reads to the suite.
    public enum FailureKind: String, Sendable, Hashable, Codable {
        /// Refused on security grounds (a certificate, a redirect, credentials, a URL).
        case refused
        /// The server's failure, or a transport error, reported.
        case error
        /// The client lacks what the scenario needs (a method not implemented, a missing setting).
        case notImplemented = "not-implemented"
    }

    /// The account added, when setup succeeded.
    public var account: Account?
    /// How the attempt failed; nil when it did not.
    public var failureKind: FailureKind?
    /// The client's message, as the user would read it.
    public var message: String?
    /// The failure's code (`certificate-rejected`, `handshake-failed`, ...).
    public var code: String?

    /// A success with `account` added.
    public static func added(_ account: Account) -> SuiteClientResult { SuiteClientResult(account: account) }
    /// A failure of `kind`, with the client's code and message and no account.
    public static func failed(_ kind: FailureKind, code: String, _ message: String) -> SuiteClientResult {
        SuiteClientResult(account: nil, failureKind: kind, message: message, code: code)
    }
}
