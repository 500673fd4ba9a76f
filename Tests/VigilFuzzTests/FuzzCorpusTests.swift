import Foundation
import Testing
import VigilTestSupport

/// Every committed input of every fuzz target (Fuzz/corpus/TARGET/) through the same code
/// `make fuzz` runs: seeds named `ok-*` are accepted, `bad-*` refused, `crash-*` (what a fuzz run
/// found once) whatever they give, and none traps or breaks an invariant.
@Suite("Fuzz corpus replay")
struct FuzzCorpusTests {
    static let corpus = TestPaths.root.appendingPathComponent("Fuzz/corpus")

    static func inputs(of target: ParserTarget) -> [URL] {
        let directory = corpus.appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test("Each target's committed inputs give their named outcome", arguments: ParserTarget.allCases)
    func replay(target: ParserTarget) async throws {
        let inputs = Self.inputs(of: target)
        #expect(inputs.contains { $0.lastPathComponent.hasPrefix("ok-") }, "no accepted seed for \(target.rawValue)")
        #expect(inputs.contains { $0.lastPathComponent.hasPrefix("bad-") }, "no refused seed for \(target.rawValue)")
        for input in inputs {
            let name = input.lastPathComponent
            let outcome = await target.run(Array(try Data(contentsOf: input)))
            if name.hasPrefix("ok-") {
                #expect(outcome == .accepted, "\(target.rawValue)/\(name)")
            } else if name.hasPrefix("bad-") {
                #expect(outcome == .refused, "\(target.rawValue)/\(name)")
            }
        }
    }
}
