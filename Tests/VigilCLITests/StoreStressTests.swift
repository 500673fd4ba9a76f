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

    /// A full disk, as a file-size limit (`ulimit -f`, SIGXFSZ ignored: writes fail with EFBIG as
    /// they would with ENOSPC): approvals are made until one fails. It fails with exit 2 and words
    /// that say so; every approval reported done is there with its audit event, the database is
    /// whole, nothing half-written. A log file that cannot grow does not stop a command.
    @Test func aFullDiskStopsAChangeCleanlyAndLosesNothing() async throws {
        let directory = try TestPaths.temporaryDirectory().path
        let leaf = TestPaths.testcert("valid-127.0.0.1.pem")
        let fingerprint = try TestPaths.sha256Fingerprint(of: "valid-127.0.0.1")
        // A bare file name: the database in the current directory.
        let created = try CommandRunner.vigil(["certificates", "list", "--database", "db.sqlite"], currentDirectory: directory)
        #expect(created.status == 0, "\(created.standardError)")
        let script = """
            trap '' XFSZ; ulimit -f 40
            for port in $(seq 100 400); do
              "$0" certificates approve --file "$1" --host 127.0.0.1:$port --fingerprint "$2" --database db.sqlite --log-level debug --log-file log.txt >/dev/null 2>err.txt \
                || { echo "failed $? at $port"; cat err.txt; exit 0; }
            done
            echo "never failed"
            """
        let run = try await CommandRunner.runDetached("/bin/bash", ["-c", "cd \(directory) && " + script, TestPaths.vigilBinary, leaf, fingerprint])
        let output = run.standardOutput
        #expect(output.contains("failed 2 at "), "\(output)\(run.standardError)")
        #expect(output.contains("refused a change, and nothing of it was kept") && output.contains("full disk"), "\(output)")
        let port = Int(output.split(separator: "\n").first?.split(separator: " ").last ?? "") ?? 0
        let database = directory + "/db.sqlite"
        let query = { (sql: String) throws in
            try CommandRunner.run("/usr/bin/sqlite3", [database, sql]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try query("PRAGMA integrity_check") == "ok")
        #expect(try query("SELECT count(*) FROM approved_certificate") == String(port - 100), "every approval reported done, and no other")
        #expect(try query("SELECT count(*) FROM audit_event WHERE kind = 'certificate-approved'") == String(port - 100))
        let listed = try CommandRunner.vigil(["certificates", "list", "--database", "db.sqlite"], currentDirectory: directory)
        #expect(listed.status == 0 && listed.standardOutput.contains("127.0.0.1:100"), "\(listed.standardError)")
    }
}
