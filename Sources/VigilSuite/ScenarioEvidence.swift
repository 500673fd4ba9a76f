package import VigilSimulator
package import VigilStore

/// What a scenario left behind, gathered by ``ScenarioRunner`` and judged by ``ScenarioJudge``.
package struct ScenarioEvidence: Sendable {
    /// How the client's attempt ended.
    package var result: SuiteClientResult
    /// The questions the scripted user was asked, in order.
    package var questions: [ScriptedUser.Asked]
    /// The requests the simulated hosts received.
    package var journal: [JournalEntry]
    /// Every connection the simulated hosts accepted (the client's, never the interceptor's own).
    package var connections: [ConnectionEntry] = []
    /// How many times the scenario's provider saw a spent refresh token come back.
    package var refreshTokenReuses = 0
    /// The simulated hosts' listeners.
    package var listeners: [HostSimulator.Listener]
    /// Kinds of secret per keyring account of this scenario's servers, right after setup.
    package var keyringAfterAdd: [String: [String]]
    /// The same after the account was removed (empty when none was added).
    package var keyringAfterRemoval: [String: [String]]
    /// Accounts in the scenario's database at the end (after the removal when one was added).
    package var accountsLeft: Int
    /// Approvals in the database at the end.
    package var approvalsLeft: Int
    /// Why removing the account failed, if it did.
    package var removalError: String?
    /// Log lines (the log file) and messages shown to the user, each with where it is.
    package var logLines: [(source: String, line: String)]
    /// Files under the scenario's directories holding a planted secret: file, what.
    package var filesWithSecrets: [(file: String, what: String)]
    /// The secrets planted in the scenario, looked for in logs and files.
    package var plantedSecrets: [PlantedSecret]
    /// Pinned host names and their addresses (the journal knows hosts by address).
    package var addresses: [String: String]
    /// Where setup started: scheme and address.
    package var start: (scheme: String, address: String)
    /// The address a man in the middle intercepts (host 1's), if the scenario has one.
    package var interceptedAddress: String?
    /// Why the scenario's database could not be read, if it could not.
    package var databaseProblem: String?
    /// The account the user had before the scenario (`client.account`), and the approvals that
    /// came with it.
    package var existingAccount: Account? = nil
    /// How many approvals were stored with that account.
    package var approvalsSeeded = 0
    /// Approvals in the database that a renewal rule carried over to the leaf host 1 serves.
    package var approvalsByRule = 0
    /// For an external client: `address|case` of the hosts whose certificate a standard verifier
    /// (OpenSSL, the CA file the client was given, TLS server purpose, the address checked, the
    /// security level of Debian's clients) accepts: the client is entitled to trust them.
    package var entitled: Set<String> = []
    /// What the scenario's forward proxies received (``VigilSimulator/ProxyPlan``), each proxy's in order.
    package var proxyEntries: [ProxyEntry] = []
    /// An external client's setup run (a premise of an account set up before): what the judge
    /// found against its conduct there.
    package var setupViolations: [Violation] = []
    /// What the client said at its setup run.
    package var setupSaid: String?

    /// The address of `host:port` or `name:port`.
    package func address(of hostPort: String) -> String {
        let host = ScenarioJudge.host(of: hostPort)
        return addresses[host] ?? host
    }

    /// Evidence with `result` and, unless given, everything else empty or zero.
    package init(
        result: SuiteClientResult, questions: [ScriptedUser.Asked] = [], journal: [JournalEntry] = [], connections: [ConnectionEntry] = [],
        listeners: [HostSimulator.Listener] = [], keyringAfterAdd: [String: [String]] = [:], keyringAfterRemoval: [String: [String]] = [:],
        accountsLeft: Int = 0, approvalsLeft: Int = 0, removalError: String? = nil, logLines: [(source: String, line: String)] = [],
        filesWithSecrets: [(file: String, what: String)] = [], plantedSecrets: [PlantedSecret] = [],
        addresses: [String: String] = [:], start: (scheme: String, address: String) = ("https", "127.0.0.1"),
        interceptedAddress: String? = nil, databaseProblem: String? = nil, existingAccount: Account? = nil, approvalsSeeded: Int = 0, approvalsByRule: Int = 0,
        entitled: Set<String> = [], proxyEntries: [ProxyEntry] = []
    ) {
        self.proxyEntries = proxyEntries
        self.entitled = entitled
        self.approvalsByRule = approvalsByRule
        self.existingAccount = existingAccount
        self.approvalsSeeded = approvalsSeeded
        self.addresses = addresses
        self.start = start
        self.interceptedAddress = interceptedAddress
        self.databaseProblem = databaseProblem
        self.result = result
        self.questions = questions
        self.journal = journal
        self.connections = connections
        self.listeners = listeners
        self.keyringAfterAdd = keyringAfterAdd
        self.keyringAfterRemoval = keyringAfterRemoval
        self.accountsLeft = accountsLeft
        self.approvalsLeft = approvalsLeft
        self.removalError = removalError
        self.logLines = logLines
        self.filesWithSecrets = filesWithSecrets
        self.plantedSecrets = plantedSecrets
    }
}
