import Foundation
import Testing
import VigilSimulator
import VigilSimulatorTesting
import VigilTestSupport

/// docs/ci.md's example for embedders, as written there (only the directories are this checkout's):
/// it compiles against the product's API and passes over both transports.
@Suite("VigilSimulatorTesting's documented example")
struct EmbedderExampleTests {
    @Test(arguments: SimulatorTransport.allCases)
    func aliceListsHerFiles(transport: SimulatorTransport) async throws {
        let scenario = try ScenarioLibrary(directory: RunningSimulator.fixtures).scenario(named: "valid")
        try await withSimulatedCloud(scenario, certificatesDirectory: RunningSimulator.certificates, transport: transport) { cloud in
            let basic = "Basic " + Data("alice:alice-test-password".utf8).base64EncodedString()
            let listing = try await cloud.execute("PROPFIND", "/remote.php/dav/files/alice/", headers: [("Authorization", basic)])
            #expect(listing.status == 207)
            // What reached the server: the journal keeps presence flags, never a secret.
            #expect(cloud.simulator.journal.entries.last?.accepted == true)
        }
    }
}
