import Foundation
package import VigilSimulator
package import VigilSimulatorTesting

/// Runs `body` with the fixture scenario `name` playing over `transport` (the test CA and
/// certificates; the clock now, or `clock`), through the library product embedders use.
package func withCloud<T>(
    _ name: String, _ transport: SimulatorTransport, clock: ManualSimulatorClock = ManualSimulatorClock(Date()),
    _ body: (SimulatedCloudClient) async throws -> T
) async throws -> T {
    let scenario = try ScenarioLibrary(directory: RunningSimulator.fixtures).scenario(named: name)
    return try await withSimulatedCloud(scenario, certificatesDirectory: RunningSimulator.certificates, transport: transport, clock: clock, body)
}
