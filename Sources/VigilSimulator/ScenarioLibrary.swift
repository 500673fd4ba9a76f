import Foundation

/// Every scenario in a fixtures directory, by name.
public struct ScenarioLibrary: Sendable {
    /// The fixtures directory.
    public let directory: String
    /// The scenarios, in the order of their file names.
    public let scenarios: [Scenario]

    /// Loads every `*.json` in `directory`. Throws the first malformed fixture, named.
    public init(directory: String) throws {
        self.directory = directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SimulatorError(.malformedFixture, "\(directory): no such fixtures directory.")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") && $0 != Self.knownGapsFile }.sorted()
        var scenarios: [Scenario] = []
        var seen: [String: String] = [:]
        for name in names {
            let scenario = try Scenario.load(path: (directory as NSString).appendingPathComponent(name))
            if let other = seen[scenario.name] {
                throw SimulatorError(.malformedFixture, "\(name): field name \"\(scenario.name)\" is already used by \(other).")
            }
            seen[scenario.name] = name
            scenarios.append(scenario)
        }
        self.scenarios = scenarios
    }

    /// The file beside the fixtures that lists the outcomes Vigil's client does not reach yet
    /// (read by `vigil simulate`; not a scenario).
    public static let knownGapsFile = "known-gaps.json"

    /// The scenario called `name`; throws ``SimulatorError`` (`unknown-scenario`) when there is none.
    public func scenario(named name: String) throws -> Scenario {
        guard let scenario = scenarios.first(where: { $0.name == name }) else {
            throw SimulatorError(.unknownScenario, "No scenario \"\(name)\" in \(directory); see vigil simulator scenarios.")
        }
        return scenario
    }
}
