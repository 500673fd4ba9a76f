package import Foundation
package import Logging
package import VigilHTTP
package import VigilSecrets
package import VigilSettings
package import VigilStore

/// The client a scenario is played against. ``VigilClient`` is Vigil's own account setup; tests
/// plug in clients that misbehave on purpose, to prove the suite catches them.
package protocol SuiteClient: Sendable {
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
    package var judgesByJournal: Bool { false }

    /// Fails as `not-implemented`: the client cannot use an existing account.
    package func useAccount(_ account: Account, context: SuiteClientContext) async -> SuiteClientResult {
        .failed(.notImplemented, code: "not-implemented", "This client cannot use an existing account.")
    }
}

/// Everything a client gets for one scenario: private directories, its settings, the keyring,
/// a trace-level logger writing into the scenario's state directory, and the scripted user.
package struct SuiteClientContext: Sendable {
    /// Where account setup starts.
    package var server: String
    /// The account's user name.
    package var userName: String
    /// The scripted user: answers questions, types the password, drives the browser stand-in.
    package var user: ScriptedUser
    /// The scenario's settings, as the client loads them.
    package var settings: Settings
    /// The CA file the browser stand-in trusts (the test PKI's root).
    package var caFile: String
    /// The CA files the client trusts (the fixture's `client.trust`; by default the test PKI's root).
    package var trustedCAFiles: [String]
    /// The roots of the machine's trust store the scenario plays (the fixture's
    /// `client.systemTrust`: an administrator's added root among them); nil: the machine's own.
    package var systemStoreFiles: [String]? = nil
    /// Those CA files (and the played store's roots) as one PEM bundle (what an external client is given).
    package var trustedCABundle: Data {
        (trustedCAFiles + (systemStoreFiles ?? [])).compactMap { FileManager.default.contents(atPath: $0) }.reduce(Data(), +)
    }
    /// The scenario's database file (under its data directory).
    package var databasePath: String
    /// The scenario's data, config and state directories (`XDG_*_HOME` for the client).
    package var dataDirectory: String
    /// The scenario's config directory.
    package var configDirectory: String
    /// The scenario's state directory (the logger writes there).
    package var stateDirectory: String
    /// The keyring.
    package var secrets: any SecretStore
    /// A trace-level logger writing into the state directory.
    package var logger: Logger
    /// Each connection and answer; the whole scenario has a multiple of it.
    package var timeout: Duration
    /// Names pinned to the simulated hosts (`HOST:PORT:ADDRESS`, curl's `--resolve`).
    package var resolve: [HostResolution] = []
    /// In the suite's network namespace: the resolver file an external client is run with (its
    /// scenario's name server) and the file it is bound over.
    package var resolver: (file: String, target: String)?
    /// Which run of a scenario this is: the only one, or, for a scenario whose premise is an
    /// account set up before, the external client's setup run or its later (judged) run.
    package var phase: Phase = .only

    /// Which run of a scenario a client is in.
    package enum Phase: Sendable {
        /// A scenario with no premise (or Vigil's own client, whose account is seeded).
        case only
        /// An external client's run against the server as it was at setup.
        case setup
        /// Its run against the scenario's server, with what the setup run left.
        case later
    }
    /// Mutual TLS: the client certificate and key files the user gives the account (PEM); nil: none.
    package var clientCertificate: (certificate: String, key: String)?
    /// An access proxy's service token as an access headers file's text (`Name: value` lines); nil: none.
    package var accessHeaders: String?
    /// Waits until every connection to the simulated hosts is closed, at most `grace`, then cuts
    /// the rest; returns how many were cut. An external client calls it once its processes are
    /// gone, so that the journal is read only when nothing can reach the hosts any more.
    package var settle: @Sendable (Duration) async -> Int = { _ in 0 }
}

/// How a client's attempt ended.
package struct SuiteClientResult: Sendable {
    /// How a failure reads to the suite.
    package enum FailureKind: String, Sendable, Hashable, Codable {
        /// Refused on security grounds (a certificate, a redirect, credentials, a URL).
        case refused
        /// The server's failure, or a transport error, reported.
        case error
        /// The client lacks what the scenario needs (a method not implemented, a missing setting).
        case notImplemented = "not-implemented"
    }

    /// The account added, when setup succeeded.
    package var account: Account?
    /// How the attempt failed; nil when it did not.
    package var failureKind: FailureKind?
    /// The client's message, as the user would read it.
    package var message: String?
    /// The failure's code (`certificate-rejected`, `handshake-failed`, ...).
    package var code: String?
    /// An external client: the paths outside its cell it tried to reach (``ClientCell``).
    package var cellEscapes: [String] = []

    /// A success with `account` added.
    package static func added(_ account: Account) -> SuiteClientResult { SuiteClientResult(account: account) }
    /// A failure of `kind`, with the client's code and message and no account.
    package static func failed(_ kind: FailureKind, code: String, _ message: String) -> SuiteClientResult {
        SuiteClientResult(account: nil, failureKind: kind, message: message, code: code)
    }
}
