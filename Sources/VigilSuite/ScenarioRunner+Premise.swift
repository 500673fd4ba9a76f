// ScenarioRunner's seeding stage: an account set up before the scenario (its premise), played by the client itself or seeded into the database and keyring.
import Foundation
import Logging
import VigilAccounts
import VigilCertificates
import VigilHTTP
import VigilLogging
import VigilSecrets
import VigilSettings
import VigilSimulator
import VigilStore
import VigilThreads

extension ScenarioRunner {
    /// The scenario as it was when the user set the account up: host 1 serving the premise's
    /// certificate (its genuine one by default), no fault, no man in the middle, no revocation
    /// plan; the certificate the user approved then is one the client may accept.
    func setupScenario(_ premise: ScenarioClient.ExistingAccount) -> Scenario {
        var before = scenario
        before.name = scenario.name + "-setup"
        before.outcome = .login
        before.behaviour = Scenario.Behaviour(kind: .normal)
        before.also = nil
        before.mitm = nil
        before.revocation = nil
        before.oidcFaults = nil
        let first = HostSimulator.Configuration(scenario: scenario, certificatesDirectory: certificatesDirectory).addresses[0]
        let name = premise.certificate ?? HostSimulatorCases.genuine(for: first)
        var certificates = scenario.certificates ?? [:]
        certificates[first] = name
        before.certificates = certificates
        var client = scenario.client ?? ScenarioClient()
        client.account = nil
        client.approve = nil
        client.then = nil
        if premise.approved == true { client.acceptedCertificates = (client.acceptedCertificates ?? []) + [name] }
        before.client = client
        return before
    }

    /// The external client's setup run, against ``setupScenario(_:)``: host 1's HTTPS port (the
    /// scenario's host 1 takes it next), what the judge finds against the client's conduct there
    /// (a leak at setup is a leak), and what the client said.
    func playSetup(
        _ premise: ScenarioClient.ExistingAccount, data: String, config: String, state: String
    ) async throws -> (port: Int, violations: [Violation], said: String?, planted: [PlantedSecret]) {
        var runner = self
        runner.scenario = setupScenario(premise)
        // The approval is the user's at setup: the setup run is told it too.
        runner.approvedAtSetup = premise.approved == true ? premise : nil
        let played = try await runner.playOnce(
            HostSimulator.Configuration(scenario: runner.scenario, certificatesDirectory: certificatesDirectory), data: data, config: config, state: state,
            phase: .setup)
        guard let port = played.listeners.first(where: { $0.host == 1 && $0.scheme == "https" })?.port else {
            throw SuiteError(.invalidFixture, "\(scenario.name): the setup's host 1 has no HTTPS listener.")
        }
        let violations = ScenarioJudge(scenario: runner.scenario).judgeByJournal(played.evidence).violations.map {
            Violation($0.code, SuiteText.oneLine("At the account's setup: " + $0.message))
        }
        return (port, violations, played.evidence.result.message.map(SuiteText.oneLine), played.evidence.plantedSecrets)
    }

    /// The account of `client.account`, as setup would have left it when host 1 served the premise's
    /// certificate: the row with that reviewed chain, the password in the keyring, and the approval
    /// when the user gave one. Returns the account and the approvals made.
    func seed(
        _ premise: ScenarioClient.ExistingAccount, server: String, user: String, password: String?, running: RunningHostSimulator,
        context: SuiteClientContext
    ) async throws -> (account: Account, approvals: Int) {
        guard let password, let endpoint = try? Endpoint(url: server) else {
            throw SuiteError(.invalidFixture, "\(scenario.name): client.account needs the user's password and an https host 1.")
        }
        let name = premise.certificate ?? HostSimulatorCases.genuine(for: endpoint.host)
        let path = (certificatesDirectory as NSString).appendingPathComponent("\(name)-chain.pem")
        guard let chain = try? Certificate.load(path: path), let leaf = chain.first else {
            throw SuiteError(.invalidFixture, "\(scenario.name): client.account.certificate names \(name), and \(path) is not a chain.")
        }
        let database = try await VigilDatabase.open(path: context.databasePath)
        let pem = chain.map(\.pemEncoded).joined()
        if premise.method == "openid-connect" {
            // Tokens from the scenario's provider, the access token expired: the check refreshes first.
            let spent = premise.refreshInterrupted == true
            guard let tokens = running.simulator.responder.oidc.seededTokens(user: user, issuer: server, spent: spent) else {
                throw SuiteError(.invalidFixture, "\(scenario.name): client.account's provider issued no refresh token to seed the account with.")
            }
            var account = Account(
                server: server, user: user, method: "com.owncloud.openid-connect", reviewedChainPEM: pem, clientID: OIDCProvider.staticClientID,
                tokenEndpoint: server + "/index.php/apps/oauth2/api/v1/token", revocationEndpoint: server + "/index.php/apps/oauth2/revoke",
                tokenExpiresAt: Date().addingTimeInterval(-60))
            account.issuer = server
            account.subject = user
            account.refreshStartedAt = spent ? Date().addingTimeInterval(-30) : nil
            try await Accounts(database: database).add(account)
            try await secrets.store(Secret(tokens.access), for: SecretKey(account: account.secretAccount, kind: .accessToken))
            try await secrets.store(Secret(tokens.refresh), for: SecretKey(account: account.secretAccount, kind: .refreshToken))
            return (account, try await approveAtSetup(premise, leaf: leaf, endpoint: endpoint, database: database))
        }
        let account = Account(server: server, user: user, method: "com.owncloud.basicauth", reviewedChainPEM: pem)
        try await Accounts(database: database).add(account)
        try await secrets.store(Secret(password), for: SecretKey(account: account.secretAccount, kind: .password))
        return (account, try await approveAtSetup(premise, leaf: leaf, endpoint: endpoint, database: database))
    }

    /// The premise's approval of host 1's certificate at setup, when it says the user gave one;
    /// how many approvals were made.
    func approveAtSetup(_ premise: ScenarioClient.ExistingAccount, leaf: Certificate, endpoint: Endpoint, database: VigilDatabase) async throws -> Int {
        guard premise.approved == true else { return 0 }
        try await CertificateApprovals(database: database).approve(
            leaf, host: endpoint.host, port: endpoint.port, note: "approved at setup (the scenario's premise)")
        return 1
    }
}
