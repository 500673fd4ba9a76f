public import Foundation
public import VigilSecrets
public import VigilSimulator

/// `vigil simulate` as a library: every selected scenario played against a client (Vigil's own
/// by default), `jobs` at a time, each in a directory of its own under `workDirectory`.
public struct SimulationSuite: Sendable {
    public var scenarios: [Scenario]
    public var knownGaps: KnownGaps
    public var certificatesDirectory: String
    /// Where the scenarios' directories go; removed after each scenario unless `keep`.
    public var workDirectory: String
    public var keep = false
    public var jobs = 1
    public var timeout: Duration = .seconds(10)
    public var client: any SuiteClient = VigilClient()
    public var secrets: any SecretStore

    public init(scenarios: [Scenario], knownGaps: KnownGaps, certificatesDirectory: String, workDirectory: String, secrets: any SecretStore) {
        self.scenarios = scenarios
        self.knownGaps = knownGaps
        self.certificatesDirectory = certificatesDirectory
        self.workDirectory = workDirectory
        self.secrets = secrets
    }

    /// Plays every scenario; `progress` is called as each one ends (from any task).
    public func run(progress: @escaping @Sendable (ScenarioResult) -> Void = { _ in }) async -> SuiteReport {
        let started = ContinuousClock.now
        let results = await withTaskGroup(of: (Int, ScenarioResult).self) { group in
            var collected: [(Int, ScenarioResult)] = []
            var next = 0
            func start(_ index: Int) {
                let scenario = scenarios[index]
                var runner = ScenarioRunner(scenario: scenario, certificatesDirectory: certificatesDirectory,
                                            directory: workDirectory + "/" + scenario.name, client: client, secrets: secrets)
                runner.timeout = timeout
                let gap = knownGaps.gaps[scenario.name]
                let keep = self.keep
                group.addTask {
                    var result = await runner.run(knownGap: gap)
                    if keep { result.evidence = runner.directory } else { try? FileManager.default.removeItem(atPath: runner.directory) }
                    progress(result)
                    return (index, result)
                }
            }
            while next < min(max(1, jobs), scenarios.count) { start(next); next += 1 }
            while let done = await group.next() {
                collected.append(done)
                if next < scenarios.count { start(next); next += 1 }
            }
            return collected.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let elapsed = ContinuousClock.now - started
        return SuiteReport(results: results, seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, jobs: jobs)
    }
}
