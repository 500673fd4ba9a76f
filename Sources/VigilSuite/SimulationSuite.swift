import Foundation
package import VigilSecrets
package import VigilSimulator

/// `vigil simulate` as a library: every selected scenario played against a client (Vigil's own
/// by default), `jobs` at a time, each in a directory of its own under `workDirectory`.
package struct SimulationSuite: Sendable {
    /// The scenarios played.
    package var scenarios: [Scenario]
    /// The known gaps the results are held to.
    package var knownGaps: KnownGaps
    /// The test PKI's directory the simulated hosts take their certificates from.
    package var certificatesDirectory: String
    /// Where the scenarios' directories go; removed after each scenario unless `keep`.
    package var workDirectory: String
    /// Keeps each scenario's directory after it ends.
    package var keep = false
    /// How many scenarios are played at a time.
    package var jobs = 1
    /// Each connection and answer (10 seconds).
    package var timeout: Duration = .seconds(10)
    /// The client played against; Vigil's own by default.
    package var client: any SuiteClient = VigilClient()
    /// The keyring the client keeps secrets in.
    package var secrets: any SecretStore
    /// The keyring is the suite's own: after the run it must hold nothing at all.
    package var requireEmptyKeyring = false
    /// Directories outside the scenarios' that the client could write to (the run's HOME and
    /// TMPDIR): after the run, no planted secret of any scenario may be in a file there.
    package var scanDirectories: [String] = []
    /// For an external client: a scenario played first (`valid`: it must really trust the
    /// scenario's CA and log in). Every scenario is played whatever it shows: a client that does
    /// not log in there is still searched for leaks everywhere. A violation anywhere makes it
    /// unsafe (exit 1); only a client with no violation and no login is not scored (exit 2).
    package var preflight: Scenario?
    /// For an external client: whether the run is in a network namespace of its own
    /// (``NetworkNamespace``); nil for Vigil's own client.
    package var networkNamespace: Bool?
    /// In that namespace: the listener for every host outside the scenarios, whose contacts are
    /// reported and searched for every scenario's planted secrets after the run.
    package var otherHosts: OtherHostRecorder?
    /// The names an external client meets in the suite's network namespace; nil outside one.
    package var network: ClientNetwork?

    /// A suite of `scenarios` with the defaults: one job, Vigil's client, directories removed.
    package init(scenarios: [Scenario], knownGaps: KnownGaps, certificatesDirectory: String, workDirectory: String, secrets: any SecretStore) {
        self.scenarios = scenarios
        self.knownGaps = knownGaps
        self.certificatesDirectory = certificatesDirectory
        self.workDirectory = workDirectory
        self.secrets = secrets
    }

    /// Plays every scenario; `progress` is called as each one ends (from any task).
    package func run(progress: @escaping @Sendable (ScenarioResult) -> Void = { _ in }) async -> SuiteReport {
        let started = ContinuousClock.now
        let external = (client as? ExternalClient)?.profile.name
        var preflightResult: ScenarioResult?
        var preflightSecrets: [PlantedSecret] = []
        if let preflight {
            var runner = ScenarioRunner(
                scenario: preflight, certificatesDirectory: certificatesDirectory, directory: workDirectory + "/preflight-" + preflight.name, client: client,
                secrets: secrets)
            runner.timeout = timeout
            runner.network = network
            let (result, planted) = await runner.runKeepingSecrets(knownGap: nil)
            if !keep { try? FileManager.default.removeItem(atPath: runner.directory) }
            preflightResult = result
            preflightSecrets = planted
        }
        let outcomes = await withTaskGroup(of: (Int, ScenarioResult, [PlantedSecret]).self) { group in
            var collected: [(Int, ScenarioResult, [PlantedSecret])] = []
            var next = 0
            func start(_ index: Int) {
                let scenario = scenarios[index]
                var runner = ScenarioRunner(
                    scenario: scenario, certificatesDirectory: certificatesDirectory,
                    directory: workDirectory + "/" + scenario.name, client: client, secrets: secrets)
                runner.timeout = timeout
                runner.network = network
                let gap = knownGaps.gaps[scenario.name]
                let keep = self.keep
                group.addTask {
                    // Only a directory this run creates is ever removed.
                    let existed = FileManager.default.fileExists(atPath: runner.directory)
                    var (result, planted) = await runner.runKeepingSecrets(knownGap: gap)
                    if keep { result.evidence = runner.directory } else if !existed { try? FileManager.default.removeItem(atPath: runner.directory) }
                    progress(result)
                    return (index, result, planted)
                }
            }
            // The scenarios that make a client wait start first (SuiteSchedule); results keep
            // the list's order.
            let order = SuiteSchedule.startOrder(scenarios)
            while next < min(max(1, jobs), order.count) {
                start(order[next])
                next += 1
            }
            while let done = await group.next() {
                collected.append(done)
                if next < order.count {
                    start(order[next])
                    next += 1
                }
            }
            return collected.sorted { $0.0 < $1.0 }
        }
        var runFailures: [String] = []
        if requireEmptyKeyring {
            do {
                let left = try await secrets.accounts(kind: nil)
                if !left.isEmpty { runFailures.append("After the run the suite's keyring still holds secrets for \(left.count) account(s) (invariant 4).") }
            } catch {
                runFailures.append("After the run the suite's keyring cannot be listed: \(error).")
            }
        }
        let planted = preflightSecrets + outcomes.flatMap(\.2)
        var leakedToFiles = false
        for directory in scanDirectories {
            for hit in ScenarioRunner.files(under: directory, containing: planted) {
                leakedToFiles = true
                runFailures.append(
                    SuiteText.oneLine(
                        "\(directory)/\(hit.file) contains \(hit.what) (invariant 3: no secret in a file, outside the scenarios' directories too)."))
            }
        }
        // Hosts outside the scenarios and the names asked (SimulationSuite+OtherHosts.swift).
        let (runViolations, contacted) = judgeOtherHosts(planted)
        runFailures += runViolations.map(\.message)
        let elapsed = ContinuousClock.now - started
        var results = outcomes.map(\.1)
        // The preflight's own result counts when its scenario was not in the list played and it
        // did not pass cleanly: its violations, or the login it did not make.
        if let preflightResult, preflightResult.safe == false || preflightResult.works != .yes,
            !results.contains(where: { $0.scenario == preflightResult.scenario })
        {
            results.insert(preflightResult, at: 0)
        }
        var report = SuiteReport(results: results, runFailures: runFailures, seconds: elapsed.seconds, jobs: jobs)
        report.client = external
        report.networkNamespace = networkNamespace
        report.otherHostsContacted = otherHosts == nil ? nil : contacted
        report.runViolations = runViolations
        // Logged in: at the preflight, or (played again) in the list.
        let loggedIn = results.contains { $0.scenario == preflight?.name && $0.works == .yes } || preflightResult?.works == .yes
        if let preflightResult, let preflight, !loggedIn {
            let said = preflightResult.clientMessage.map { " It said: \($0)" } ?? ""
            let login = "\(external ?? "the client") did not log in to `\(preflight.name)` (the genuine server, its certificate from the CA file it was given)"
            // The client's own doing only: a violation, or a secret it left in a file (not the
            // suite's keyring failing to answer).
            if results.contains(where: { $0.safe == false }) || leakedToFiles || !runViolations.isEmpty {
                // A leak is a leak whether or not the client works: scored, and unsafe.
                report.notLoggedIn = "\(login); every scenario was still searched for leaks.\(said)"
            } else {
                report.notScored =
                    "\(login), so it cannot be held to the scenarios: it ignores the CA file it is given, or its profile does not log in. No violation was found in the \(report.safeScore.of) scenario(s) played.\(said)"
            }
        }
        return report
    }
}
