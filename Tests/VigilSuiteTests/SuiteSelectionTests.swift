import Testing
import VigilSimulator
import VigilSuite
import VigilTestSupport

@Suite("vigil simulate: selection")
struct SuiteSelectionTests {
    let scenarios = try! ScenarioLibrary(directory: RunningSimulator.fixtures).scenarios

    @Test func theShardsOfOneCountTogetherHoldEveryScenarioOnce() throws {
        for count in 1...5 {
            let parts = try (1...count).map { SuiteSelection(shard: try SuiteSelection.shard("\($0)/\(count)")).select(scenarios).map(\.name) }
            let all = parts.flatMap { $0 }
            #expect(all.sorted() == scenarios.map(\.name).sorted(), "\(count) shards cover the list")
            #expect(Set(all).count == all.count, "no scenario in two shards of \(count)")
            #expect(parts.allSatisfy { abs($0.count - scenarios.count / count) <= 1 }, "shards are balanced")
        }
    }

    @Test(arguments: ["0/3", "4/3", "1/0", "a/b", "1", "1/2/3", ""])
    func aMalformedShardIsRefused(text: String) {
        #expect(throws: SuiteError.self) { _ = try SuiteSelection.shard(text) }
    }

    @Test func globsSelectByName() {
        let redirects = SuiteSelection(globs: ["redirect-cross-host-30?"]).select(scenarios).map(\.name)
        #expect(redirects == ["redirect-cross-host-301", "redirect-cross-host-302", "redirect-cross-host-307", "redirect-cross-host-308"])
        #expect(SuiteSelection(globs: ["valid", "expired"]).select(scenarios).map(\.name) == ["expired", "valid"])
        #expect(SuiteSelection(globs: ["nothing-*"]).select(scenarios).isEmpty)
    }
}
