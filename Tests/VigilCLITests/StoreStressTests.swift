import Foundation
import Testing
import VigilTestSupport

/// The store under kill -9 and contention, a short run of scripts/stress-store.sh (the long run,
/// 1,000 kills and 50 processes, is in docs/performance.md): integrity ok, every approval a
/// process reported done present with its audit event, no "database is locked".
@Suite("The store under crashes and contention")
struct StoreStressTests {
    @Test func killsAndConcurrentProcessesLoseNothing() async throws {
        let script = TestPaths.root.appendingPathComponent("scripts/stress-store.sh").path
        let result = try await CommandRunner.runDetached(script, [TestPaths.vigilBinary, "20", "20"])
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(
            result.standardOutput.contains("integrity ok") && result.standardOutput.contains("none failed, no 'database is locked'"),
            "\(result.standardOutput)")
    }
}
