import Foundation

/// SplitMix64: deterministic, so a test that picks random kill points, mutations or delays does
/// the same again from the same seed. ``fromEnvironment(default:)`` takes `VIGIL_TEST_SEED`
/// (decimal or 0x-hex) when it is set, to replay a run, else the test's own default; a test names
/// the seed in its failure messages.
package struct SeededRandom: RandomNumberGenerator {
    package let seed: UInt64
    var state: UInt64

    package init(seed: UInt64) {
        self.seed = seed
        self.state = seed
    }

    package static func fromEnvironment(default fallback: UInt64) -> SeededRandom {
        guard let text = ProcessInfo.processInfo.environment["VIGIL_TEST_SEED"], !text.isEmpty else { return SeededRandom(seed: fallback) }
        let parsed = text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        return SeededRandom(seed: parsed ?? fallback)
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
