import Glibc
package import VigilSimulator

/// Which scenarios a run plays: `--scenario GLOB` (any of them matches; all when none) and
/// `--shard I/N` (the I-th of N deterministic parts of the sorted list).
package struct SuiteSelection: Sendable {
    /// `--scenario` globs (fnmatch); empty: every scenario.
    package var globs: [String]
    /// `--shard`: the index-th (from 1) of count parts; nil: no sharding.
    package var shard: (index: Int, count: Int)?

    /// A selection of every scenario by default.
    package init(globs: [String] = [], shard: (index: Int, count: Int)? = nil) {
        self.globs = globs
        self.shard = shard
    }

    /// Parses `I/N` with 1 <= I <= N.
    package static func shard(_ text: String) throws -> (index: Int, count: Int) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (1...count).contains(index) else {
            throw SuiteError(.invalidShard, "--shard must be I/N with 1 <= I <= N (for example 2/3); got \(text).")
        }
        return (index, count)
    }

    /// The scenarios selected, sorted by name; the shards of one N together hold each exactly once.
    package func select(_ scenarios: [Scenario]) -> [Scenario] {
        let sorted = scenarios.sorted { $0.name < $1.name }
        let matching = globs.isEmpty ? sorted : sorted.filter { scenario in globs.contains { fnmatch($0, scenario.name, 0) == 0 } }
        guard let shard else { return matching }
        return matching.enumerated().filter { $0.offset % shard.count == shard.index - 1 }.map(\.element)
    }
}
