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

}
