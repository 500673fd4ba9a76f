import Foundation
import Logging
import VigilAccounts
import VigilCertificates
import VigilHTTP
import VigilLogging
package import VigilSecrets
import VigilSettings
package import VigilSimulator
import VigilStore
import VigilThreads

/// Plays one scenario: the simulator in this process on free loopback ports, private data,
/// config and state directories, the client driven by the fixture's script, then the evidence
/// gathered and judged.
package struct ScenarioRunner: Sendable {
    /// The scenario played.
    package var scenario: Scenario
    /// The test PKI's directory the simulated hosts take their certificates from.
    package var certificatesDirectory: String
    /// The scenario's own directory (created; its data, config and state directories go inside).
    package var directory: String
    /// The client played against.
    package var client: any SuiteClient
    /// The keyring the client keeps secrets in.
    package var secrets: any SecretStore
    /// Each connection and answer.
    package var timeout: Duration = .seconds(10)
    /// The suite's network namespace, for an external client: names answered by the scenario's
    /// name server. Nil outside one (scenarios that need host names are then not applicable).
    package var network: ClientNetwork?
    /// In an external client's setup run: the premise whose certificate the user approved.
    var approvedAtSetup: ScenarioClient.ExistingAccount?

    /// A runner with the default timeout (10 seconds).
    package init(scenario: Scenario, certificatesDirectory: String, directory: String, client: any SuiteClient, secrets: any SecretStore) {
        self.scenario = scenario
        self.certificatesDirectory = certificatesDirectory
        self.directory = directory
        self.client = client
        self.secrets = secrets
    }

    /// More requests than any scenario makes; a scenario that reaches it fails (nothing may be
    /// dropped from the evidence).
    static let journalLimit = 200_000

    /// Runs and judges; never throws: a scenario that cannot run is a failed result saying why.
    package func run(knownGap: KnownGaps.Gap?) async -> ScenarioResult {
        await runKeepingSecrets(knownGap: knownGap).result
    }

    /// ``run(knownGap:)``, plus the secrets planted in the scenario (for the run-wide scans).
    func runKeepingSecrets(knownGap: KnownGaps.Gap?) async -> (result: ScenarioResult, planted: [PlantedSecret]) {
        var planted: [PlantedSecret] = []
        let started = ContinuousClock.now
        let judge = ScenarioJudge(scenario: scenario)
        var result = ScenarioResult(
            scenario: scenario.name, expected: judge.expected, got: "-", status: .failed, invariants: .init(),
            failures: [], gapReason: nil, clientMessage: nil, seconds: 0)
        let byJournal = client.judgesByJournal
        if byJournal, let reason = ExternalClient.notApplicable(scenario, hostNames: network != nil) {
            result.expected = scenario.outcome.rawValue
            result.got = "-"
            result.status = .notApplicable
            result.failures = ["Not applicable: \(reason)."]
            return (result, planted)
        }
        do {
            let evidence: ScenarioEvidence
            do {
                evidence = try await play()
            } catch is SetupPortTaken {
                // Host 1's port was taken between the setup run and the scenario (another
                // scenario's socket): played again from the start, once, in a fresh directory.
                try? FileManager.default.removeItem(atPath: directory)
                evidence = try await play()
            }
            planted = evidence.plantedSecrets
            let verdict = byJournal ? judge.judgeByJournal(evidence) : judge.judge(evidence)
            result.got = byJournal ? judge.gotByJournal(evidence) : judge.got(evidence)
            if byJournal { result.expected = scenario.outcome.rawValue }
            result.invariants = verdict.invariants
            result.failures = (verdict.outcome + verdict.violations.map(\.message)).map(SuiteText.oneLine)
            result.violations = evidence.setupViolations + verdict.violations.map { Violation($0.code, SuiteText.oneLine($0.message)) }
            result.failures += evidence.setupViolations.map(\.message)
            result.clientMessage = evidence.result.message.map(SuiteText.oneLine)
            if let said = evidence.setupSaid { result.clientMessage = "at setup: \(said); later: \(result.clientMessage ?? "-")" }
            result.safe = result.violations.isEmpty
            if byJournal {
                result.works = judge.works(evidence)
            } else if scenario.outcome == .login || scenario.outcome == .reportError {
                result.works = verdict.outcome.isEmpty ? .yes : .no
            }
            let exercised = byJournal ? (result.works.map { $0 != .notExercised } ?? judge.exercised(evidence)) : true
            switch (verdict.outcome.isEmpty && result.violations.isEmpty, knownGap) {
            case (true, nil) where !exercised:
                result.status = .notExercised
                result.failures = ["Not exercised: the client never met the scenario's fault."]
            case (true, nil): result.status = .passed
            case (true, .some):
                result.status = .gapClosed
                result.failures = ["\(scenario.name) now reaches \(judge.expected): remove it from known-gaps.json."]
            case (false, let gap?) where result.violations.isEmpty && gap.got == result.got:
                result.status = .knownGap
                result.gapReason = gap.reason
            case (false, let gap?) where result.violations.isEmpty:
                result.status = .failed
                result.failures.append(
                    "known-gaps.json records that Vigil gets \(gap.got) here; it now gets \(result.got). A changed gap is checked again: update the entry if the new behaviour is the expected step."
                )
            case (false, _): result.status = .failed
            }
        } catch {
            result.failures = [SuiteText.oneLine("The scenario could not run: \(error)")]
        }
        let elapsed = ContinuousClock.now - started
        result.seconds = elapsed.seconds
        return (result, planted)
    }

    /// Runs the scenario and returns what it left behind.
    package func play() async throws -> ScenarioEvidence {
        let fileManager = FileManager.default
        let data = directory + "/data", config = directory + "/config", state = directory + "/state"
        // A scenario starts from nothing, in a directory of its own that it creates: never one
        // that was there before (the suite never removes what it did not create).
        guard !fileManager.fileExists(atPath: directory) else {
            throw SuiteError(.workDirectory, "\(directory) exists already; the suite writes only into directories it creates.")
        }
        for path in [directory, data, config + "/vigil", state + "/vigil/logs"] {
            try fileManager.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        // An external client meets a premise of an account set up before as a user would have
        // made it: its setup run against the server as it was, then (same HOME, same folder,
        // host 1 on the same port) the scenario.
        var setup: (port: Int, violations: [Violation], said: String?, planted: [PlantedSecret])?
        if client.judgesByJournal, let premise = scenario.client?.account {
            setup = try await playSetup(premise, data: data, config: config, state: state)
        }
        var configuration = HostSimulator.Configuration(scenario: scenario, certificatesDirectory: certificatesDirectory)
        if let setup {
            configuration.port = setup.port
            configuration.plainPortFollows = false
        }
        var evidence: ScenarioEvidence
        do {
            evidence = try await playOnce(configuration, data: data, config: config, state: state, phase: setup == nil ? .only : .later).evidence
        } catch  where setup != nil && Self.addressInUse(error) {
            throw SetupPortTaken()
        }
        if let setup {
            evidence.setupViolations = setup.violations
            evidence.setupSaid = setup.said
            // The setup run's own secrets (a proxy password, tokens) are searched for too.
            evidence.plantedSecrets += setup.planted.filter { !evidence.plantedSecrets.contains($0) }
        }
        return evidence
    }

    /// One run of the client against a simulator made from `configuration` (started, then
    /// stopped whatever happens): what it left behind, and the listeners it had.
    func playOnce(
        _ configuration: HostSimulator.Configuration, data: String, config: String, state: String, phase: SuiteClientContext.Phase
    ) async throws -> (evidence: ScenarioEvidence, listeners: [HostSimulator.Listener]) {
        let running = try await RunningHostSimulator(try HostSimulator(configuration: configuration, journal: try Journal(memoryLimit: Self.journalLimit)))
        do {
            let evidence = try await withNameServer(running, state: state) { resolver in
                let settings = try loadSettings(config: config, running: running)
                return try await drive(running, settings: settings, data: data, config: config, state: state, resolver: resolver, phase: phase)
            }
            await running.stop()
            return (evidence, running.listeners)
        } catch {
            await running.stop()
            throw error
        }
    }

    /// A listener could not bind its address and port because a socket holds them.
    static func addressInUse(_ error: any Error) -> Bool {
        "\(error)".contains("Address already in use") || "\(error)".contains("EADDRINUSE")
    }

    /// The scenario's hosts could not bind the port the setup run's host 1 had.
    struct SetupPortTaken: Error, CustomStringConvertible {
        var description: String { "host 1's port was taken between the setup run and the scenario, twice" }
    }

    /// `body` with, for an external client in the suite's network namespace, a name server of the
    /// scenario's own answering its host names (and giving every other name to the recorder): the
    /// resolver file the client runs with; nil otherwise.
    func withNameServer<Result>(_ running: RunningHostSimulator, state: String, _ body: (String?) async throws -> Result) async throws -> Result {
        guard client.judgesByJournal, let network else { return try await body(nil) }
        let nameServer = try await network.nameServer(Self.resolutions(scenario, running), directory: state)
        do {
            let result = try await body(nameServer.file)
            await nameServer.server.stop()
            network.release(nameServer.slot)
            return result
        } catch {
            await nameServer.server.stop()
            network.release(nameServer.slot)
            throw error
        }
    }

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

    func drive(
        _ running: RunningHostSimulator, settings: Settings, data: String, config: String, state: String, resolver: String? = nil,
        phase: SuiteClientContext.Phase = .only
    ) async throws -> ScenarioEvidence {
        let users = scenario.effectiveUsers
        let userName = scenario.client?.user ?? users.keys.sorted().first ?? "alice"
        let caFile = (certificatesDirectory as NSString).appendingPathComponent("ca-bundle.pem")
        let timeout = scenario.client?.timeout.map { Duration.milliseconds(Int64($0 * 1000)) } ?? self.timeout
        let resolve = Self.resolutions(scenario, running)
        var leaves = try servedLeaves(running)
        for pin in resolve { leaves["\(pin.host):\(pin.port)"] = leaves["\(pin.address):\(pin.port)"] }
        let journal = running.simulator.journal
        let user = ScriptedUser(
            approve: Set(scenario.client?.approve ?? []), password: users[userName], servedLeaves: leaves,
            caFile: caFile, browserTimeout: max(2, Int(timeout.components.seconds) * 2), resolve: resolve.map(\.description),
            journalPosition: { journal.entries.count }, connectionPosition: { journal.connectionCount })
        let logFile = state + "/vigil/logs/vigil.log"
        // In the suite's network namespace a host's name reaches it on port 443 (ClientNetwork).
        let server = Self.expand(running.resolve(scenario.client?.start ?? "{https:1}"), resolve, usualPort: resolver != nil)
        let trusted = try (scenario.client?.trust ?? ["ca-bundle"]).map { name in
            let path = (certificatesDirectory as NSString).appendingPathComponent("\(name).pem")
            guard FileManager.default.fileExists(atPath: path) else {
                throw SuiteError(.invalidFixture, "\(scenario.name): client.trust names \(name), and \(path) does not exist.")
            }
            return path
        }
        var context = SuiteClientContext(
            server: server, userName: userName, user: user, settings: settings, caFile: caFile, trustedCAFiles: trusted,
            databasePath: data + "/vigil/vigil.sqlite", dataDirectory: data, configDirectory: config, stateDirectory: state,
            secrets: secrets, logger: Self.traceLogger(file: logFile, hashKey: state + "/vigil/log-hash.key"), timeout: timeout, resolve: resolve,
            settle: { grace in await Self.settle(running, grace: grace) })
        if let resolver, let network { context.resolver = (resolver, network.resolverTarget) }
        context.phase = phase
        // Certificates the user or the administrator approved, told to an external client the one
        // way every client reads: added to its CA file.
        // The CA files alone (for the entitlement check), then the approvals added for the client.
        let caBundleWithoutApprovals = context.trustedCABundle
        let approvedFile = client.judgesByJournal ? try approvedLeaves(directory: state) : nil
        let approvedFingerprints = Set(((approvedFile.map { try? Certificate.load(path: $0) } ?? nil) ?? []).map(\.sha256Fingerprint))
        if let approvedFile { context.trustedCAFiles.append(approvedFile) }
        if let names = scenario.client?.systemTrust {
            context.systemStoreFiles = try names.map { name in
                let path = (certificatesDirectory as NSString).appendingPathComponent("\(name).pem")
                guard FileManager.default.fileExists(atPath: path) else {
                    throw SuiteError(.invalidFixture, "\(scenario.name): client.systemTrust names \(name), and \(path) does not exist.")
                }
                return path
            }
        }
        if let name = scenario.client?.clientCertificate {
            let directory = certificatesDirectory as NSString
            context.clientCertificate = (directory.appendingPathComponent("\(name).pem"), directory.appendingPathComponent("\(name).key"))
            context.user.browserCertificate = context.clientCertificate
        }
        if scenario.client?.accessHeaders == true {
            let fields = scenario.behaviours.flatMap { ($0.headers ?? [:]).sorted { $0.key < $1.key } }
            context.accessHeaders = fields.map { "\($0.key): \($0.value)\n" }.joined()
        }
        try FileManager.default.createDirectory(atPath: data + "/vigil", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])

        // A proxy password kept before the scenario (`vigil proxy login`), as the fixture says.
        var keptProxy: ProxyIdentity?
        if let login = scenario.client?.proxyLogin {
            let passwords = running.simulator.responder.proxyPasswords
            guard let url = running.simulator.proxyURLs[login.proxy], let identity = ProxyIdentity(url: url), passwords.indices.contains(login.proxy - 1)
            else {
                throw SuiteError(.invalidFixture, "\(scenario.name): client.proxyLogin names proxy \(login.proxy), which the scenario does not have.")
            }
            let secrets = self.secrets
            try await BlockingQueue.keyring.run {
                try ProxyCredentials(secrets: secrets).store(
                    ProxyCredential(user: ProxyPlan.user, password: passwords[login.proxy - 1], allowsClearText: login.allowClearText == true), for: identity)
            }
            keptProxy = identity
        }
        var existing: (account: Account, approvals: Int)?
        let forgetProxy = { [secrets] in
            if let keptProxy { _ = try? await BlockingQueue.keyring.run { try ProxyCredentials(secrets: secrets).remove(keptProxy) } }
        }
        if let premise = scenario.client?.account, !client.judgesByJournal {
            do {
                existing = try await seed(premise, server: server, user: userName, password: users[userName], running: running, context: context)
            } catch {
                await forgetProxy()
                throw error
            }
        }
        let result = if let existing { await client.useAccount(existing.account, context: context) } else { await client.addAccount(context) }
        let servers = running.listeners.map(\.url) + resolve.map { "https://\($0.host):\($0.port)" }
        let keyringAfterAdd = try await keyringItems(for: servers)
        var keyringAfterRemoval: [String: [String]] = [:]
        var removalError: String?
        if let account = result.account ?? existing?.account {
            do { try await client.removeAccount(account, context: context) } catch { removalError = "\(error)" }
            keyringAfterRemoval = try await keyringItems(for: servers)
        } else if !keyringAfterAdd.isEmpty {
            // Clean up what a failed client left, so that the next run starts from an empty keyring.
            for (account, kinds) in keyringAfterAdd {
                for kind in kinds { _ = try? await secrets.remove(SecretKey(account: account, kind: .init(rawValue: kind))) }
            }
        }
        // The kept proxy password goes last: the account's removal may go through the proxy too.
        await forgetProxy()
        let counts = await Self.databaseCounts(context.databasePath)
        // Approvals a renewal rule carried over: read from the database, not from the client, and
        // only for the leaf host 1 really serves, with the rule's note.
        let hostOne = running.listeners.first { $0.host == 1 && $0.scheme == "https" }.map { "\($0.address):\($0.port)" }
        var byRule = 0
        if existing != nil, let database = try? await VigilDatabase.open(path: context.databasePath),
            let approvals = try? await CertificateApprovals(database: database).list(includingRevoked: true)
        {
            byRule = approvals.filter { approval in approval.note?.hasPrefix("renewal of ") == true && hostOne.map { leaves[$0] } == approval.sha256 }.count
        }
        // Judged only when nothing can reach the hosts any more.
        _ = await Self.settle(running, grace: .seconds(2))
        let entries = journal.entries
        if entries.count >= Self.journalLimit / 2 {
            throw SuiteError(.invalidFixture, "\(scenario.name): the client made over \(Self.journalLimit / 2) requests; the journal cannot keep them all.")
        }
        let addresses = Dictionary(resolve.map { ($0.host, $0.address) }, uniquingKeysWith: { first, _ in first })
        let startURL = URLComponents(string: server)
        let startHost = (startURL?.host ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let planted = running.simulator.responder.plantedSecrets()
        var logLines = Self.lines(ofFiles: RotatingFileSink.files(for: logFile)).map {
            (source: "the log (\(Self.relative($0.file, to: directory)))", line: $0.line)
        }
        logLines += user.shown.map { (source: "a message shown to the user", line: $0) }
        var evidence = ScenarioEvidence(
            result: result, questions: user.questions, journal: entries, connections: journal.connections,
            listeners: running.listeners, keyringAfterAdd: keyringAfterAdd, keyringAfterRemoval: keyringAfterRemoval,
            accountsLeft: counts.accounts, approvalsLeft: counts.approvals, removalError: removalError, logLines: logLines,
            filesWithSecrets: Self.files(under: directory, containing: planted), plantedSecrets: planted,
            addresses: addresses, start: (startURL?.scheme?.lowercased() ?? "https", addresses[startHost] ?? startHost),
            interceptedAddress: scenario.mitm == true ? running.listeners.first { $0.host == 1 && $0.scheme == "https" }?.address : nil,
            databaseProblem: counts.problem, existingAccount: existing?.account, approvalsSeeded: existing?.approvals ?? 0, approvalsByRule: byRule,
            entitled: client.judgesByJournal
                ? entitledCertificates(running, bundle: caBundleWithoutApprovals, approved: (approvedFile, approvedFingerprints)) : [],
            proxyEntries: running.simulator.proxyEntries)
        evidence.refreshTokenReuses = running.simulator.responder.oidc.refreshTokenReuses
        return evidence
    }

    /// The leaves the user approved at setup (`client.account.approved`) and those the settings
    /// pre-approve (`{sha256:CASE}` in `connection.approved-certificates`), in one PEM file written
    /// to `directory`; nil when there are none.
    func approvedLeaves(directory: String) throws -> String? {
        var names: [String] = []
        if let premise = scenario.client?.account ?? approvedAtSetup, premise.approved == true {
            names.append(premise.certificate ?? HostSimulatorCases.genuine(for: "127.0.0.1"))
        }
        if case .strings(let entries) = scenario.client?.settings?["connection.approved-certificates"] {
            for entry in entries {
                var rest = Substring(entry)
                while let open = rest.range(of: "{sha256:"), let close = rest[open.upperBound...].firstIndex(of: "}") {
                    names.append(String(rest[open.upperBound..<close]))
                    rest = rest[rest.index(after: close)...]
                }
            }
        }
        guard !names.isEmpty else { return nil }
        let pem = try names.map { name in
            let path = (certificatesDirectory as NSString).appendingPathComponent("\(name).pem")
            guard let leaf = try? Certificate.load(path: path).first else {
                throw SuiteError(.invalidFixture, "\(scenario.name): the approved certificate \(name) is not at \(path).")
            }
            return leaf.pemEncoded
        }.joined()
        let file = directory + "/approved-certificates.pem"
        try Data(pem.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// The hosts (not a man in the middle) whose non-genuine certificate a standard verifier
    /// accepts with the CA files the client is given: OpenSSL's `verify`, TLS server purpose, the
    /// host's address checked, security level 2 (Debian's default for its clients). An external
    /// client is entitled to trust those; Vigil's own client is held to its fixtures.
    func entitledCertificates(
        _ running: RunningHostSimulator, bundle data: Data, approved: (file: String?, fingerprints: Set<String>)
    ) -> Set<String> {
        var entitled: Set<String> = []
        let bundle = directory + "/entitlement-ca.pem"
        guard (try? data.write(to: URL(fileURLWithPath: bundle))) != nil else { return [] }
        defer { try? FileManager.default.removeItem(atPath: bundle) }
        for listener in running.listeners where listener.scheme == "https" && listener.forwardsTo == nil {
            // A revocation scenario's minted chain: the judge knows from the plan whether it may be used.
            guard let name = listener.certificate, name != HostSimulatorCases.genuine(for: listener.address),
                running.simulator.mintedChain(for: listener.address) == nil
            else { continue }
            let base = (certificatesDirectory as NSString).appendingPathComponent(name)
            let check = listener.address.contains(":") || listener.address.allSatisfy({ $0.isNumber || $0 == "." }) ? "-verify_ip" : "-verify_hostname"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            // A leaf the user approved stands for itself: checked alone as its own anchor (a
            // partial chain of one; the name, the purpose and the key's strength still checked).
            // Every other chain must reach an anchor of the CA files (no partial chains there: an
            // intermediate in a CA file is not an anchor).
            let served: Certificate? = (try? Certificate.load(path: base + ".pem"))?.first
            let isApproved = approved.file != nil && served.map { approved.fingerprints.contains($0.sha256Fingerprint) } == true
            let anchors = isApproved ? ["-partial_chain", "-CAfile", approved.file ?? bundle] : ["-CAfile", bundle]
            process.arguments =
                ["verify"] + anchors + [
                    "-untrusted", base + "-chain.pem", "-purpose", "sslserver", check, listener.address, "-auth_level", "2",
                    base + ".pem",
                ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { continue }
            process.waitUntilExit()
            if process.terminationStatus == 0 { entitled.insert("\(listener.address)|\(name)") }
        }
        return entitled
    }

    /// Waits until the simulated hosts have no open connection, at most `grace`; then cuts the
    /// rest. Returns how many were cut.
    static func settle(_ running: RunningHostSimulator, grace: Duration) async -> Int {
        let deadline = ContinuousClock.now + grace
        while running.simulator.journal.openConnections > 0, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        // From here on the hosts take no new connection: what the journal holds is all there is.
        let cut = running.simulator.cutConnections(closingDoors: true)
        guard cut > 0 else { return 0 }
        // The cut connections' handlers complete their entries on their event loops.
        let closing = ContinuousClock.now + .seconds(1)
        while running.simulator.journal.openConnections > 0, ContinuousClock.now < closing { try? await Task.sleep(for: .milliseconds(10)) }
        return cut
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

    /// The fixture's host names pinned to their hosts' HTTPS addresses and ports.
    static func resolutions(_ scenario: Scenario, _ running: RunningHostSimulator) -> [HostResolution] {
        (scenario.client?.hosts ?? [:]).sorted { $0.key < $1.key }.compactMap { name, host in
            running.listeners.first { $0.host == host && $0.scheme == "https" }.flatMap { try? HostResolution(parsing: "\(name):\($0.port):\($0.address)") }
        }
    }

    /// `{https:NAME}` as `https://NAME:PORT` for each pinned name; `https://NAME` with
    /// `usualPort` (an IPv4 host, reached on 443 in the suite's network namespace).
    static func expand(_ template: String, _ resolve: [HostResolution], usualPort: Bool = false) -> String {
        resolve.reduce(template) {
            let port = usualPort && !$1.address.contains(":") ? "" : ":\($1.port)"
            return $0.replacingOccurrences(of: "{https:\($1.host)}", with: "https://\($1.host)\(port)")
        }
    }

    /// The fixture's settings written as the user's settings file and loaded the way every command
    /// loads them (no managed file, no VIGIL_ variables); `{https:N}` and `{http:N}` name the
    /// running hosts.
    func loadSettings(config: String, running: RunningHostSimulator) throws -> Settings {
        let userFile = config + "/vigil/settings.json"
        var object: [String: Any] = [:]
        for (key, value) in scenario.client?.settings ?? [:] {
            switch value {
            case .string(let text): object[key] = running.resolve(try expandPins(text))
            case .integer(let number): object[key] = number
            case .bool(let flag): object[key] = flag
            case .strings(let list): object[key] = try list.map { running.resolve(try expandPins($0)) }
            }
        }
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: URL(fileURLWithPath: userFile))
        let settings = try SettingsLoader(environment: [
            "HOME": directory, "XDG_CONFIG_HOME": config,
            SettingsLocations.managedFileVariable: directory + "/no-managed-settings.json",
        ]).load()
        if let problem = settings.issues.first {
            throw SuiteError(.invalidFixture, "\(scenario.name): client.settings: \(problem)")
        }
        return settings
    }

    /// `{spki:CASE}` and `{sha256:CASE}` in a fixture's setting: the SPKI pin or the fingerprint of
    /// that testcerts case's leaf (the test PKI is regenerated with new keys, so fixtures name
    /// certificates, not their hashes).
    func expandPins(_ text: String) throws -> String {
        var result = text
        for (marker, value) in [("{spki:", { (leaf: Certificate) in leaf.spkiPin }), ("{sha256:", { (leaf: Certificate) in leaf.sha256Fingerprint })] {
            while let open = result.range(of: marker), let close = result.range(of: "}", range: open.upperBound..<result.endIndex) {
                let name = String(result[open.upperBound..<close.lowerBound])
                let path = (certificatesDirectory as NSString).appendingPathComponent("\(name).pem")
                guard let leaf = try? Certificate.load(path: path).first else {
                    throw SuiteError(.invalidFixture, "\(scenario.name): client.settings names \(marker)\(name)}, and \(path) is not a certificate.")
                }
                result.replaceSubrange(open.lowerBound..<close.upperBound, with: value(leaf))
            }
        }
        return result
    }

    /// SHA-256 fingerprint of the leaf each HTTPS host genuinely serves, by `host:port`: what the
    /// admin reads out to the user. Behind a man in the middle, that is the genuine host's leaf,
    /// not the forgery the interceptor presents.
    func servedLeaves(_ running: RunningHostSimulator) throws -> [String: String] {
        var leaves: [String: String] = [:]
        for listener in running.listeners where listener.scheme == "https" {
            guard var name = listener.certificate else { continue }
            if let minted = running.simulator.mintedChain(for: listener.address) {
                if let leaf = try Certificate.parsePEM(minted).first { leaves["\(listener.address):\(listener.port)"] = leaf.sha256Fingerprint }
                continue
            }
            if listener.forwardsTo != nil { name = HostSimulatorCases.genuine(for: listener.address) }
            let path = (certificatesDirectory as NSString).appendingPathComponent("\(name)-chain.pem")
            if let leaf = try Certificate.load(path: path).first { leaves["\(listener.address):\(listener.port)"] = leaf.sha256Fingerprint }
        }
        return leaves
    }

    /// Kinds of secret per keyring account whose server is one of `servers`.
    func keyringItems(for servers: [String]) async throws -> [String: [String]] {
        var items: [String: [String]] = [:]
        for account in try await secrets.accounts(kind: nil) where servers.contains(where: { Self.names(account, server: $0) }) {
            var kinds: [String] = []
            for kind in [SecretKey.Kind.password, .accessToken, .refreshToken, .clientSecret] {
                if try await secrets.secret(for: SecretKey(account: account, kind: kind)) != nil { kinds.append(kind.rawValue) }
            }
            items[account] = kinds
        }
        return items
    }

    /// `user@https://127.0.0.1:4431/path` names `https://127.0.0.1:4431`, not `https://127.0.0.1:443`.
    static func names(_ account: String, server: String) -> Bool {
        guard let range = account.range(of: "@" + server) else { return false }
        let rest = account[range.upperBound...]
        return rest.isEmpty || rest.hasPrefix("/")
    }

    /// Accounts and approvals (revoked ones included) in the scenario's database; a database that
    /// cannot be read is a problem, never zero.
    static func databaseCounts(_ path: String) async -> (accounts: Int, approvals: Int, problem: String?) {
        guard FileManager.default.fileExists(atPath: path) else { return (0, 0, nil) }
        do {
            let database = try await VigilDatabase.open(path: path)
            return (
                try await Accounts(database: database).list().count, try await CertificateApprovals(database: database).list(includingRevoked: true).count, nil
            )
        } catch {
            return (0, 0, "\(error)")
        }
    }

    /// Vigil's logger at trace level with HTTP logging on and privacy masking off (the strictest
    /// setting for invariant 2: a secret must never reach a log line, masked by default or not),
    /// writing to `file` only.
    static func traceLogger(file: String, hashKey: String) -> Logger {
        var configuration = LogConfiguration()
        configuration.level = .trace
        configuration.logHTTPRequests = true
        configuration.privacyMask = false
        let sinks: [any LogSink] = [RotatingFileSink(path: file, minimumLevel: .trace)]
        let hasher = LogHasher.persistent(at: hashKey)
        var logger = Logger(label: "vigil") { label in configuration.handler(label: label, sinks: sinks, hasher: hasher) }
        logger.logLevel = .trace
        return logger
    }

    static func lines(ofFiles files: [String]) -> [(file: String, line: String)] {
        files.flatMap { file -> [(file: String, line: String)] in
            guard let data = FileManager.default.contents(atPath: file) else { return [] }
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map { (file, String($0)) }
        }
    }

    /// Every regular file under `root` holding one of the secrets, as bytes anywhere in it.
    static func files(under root: String, containing secrets: [PlantedSecret]) -> [(file: String, what: String)] {
        var found: [(file: String, what: String)] = []
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        while let relative = walker.nextObject() as? String {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: path)
            else { continue }
            for secret in secrets where secret.value.count >= 6 && data.range(of: Data(secret.value.utf8)) != nil {
                found.append((relative, secret.what))
            }
        }
        return found
    }

    static func relative(_ path: String, to root: String) -> String {
        path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }
}
