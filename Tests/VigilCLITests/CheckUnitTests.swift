import Foundation
import Testing
import VigilTestSupport

/// The package's systemd user units (packaging/systemd): valid as systemd reads them, naming man
/// pages that exist, and the check's lines carrying their journal priority exactly when standard
/// output is the journal's stream ($JOURNAL_STREAM).
@Suite("The vigil-check units")
struct CheckUnitTests {
    static let units = ["vigil-check.service", "vigil-check.timer"].map { TestPaths.root.appendingPathComponent("packaging/systemd/\($0)").path }
    static let analyze = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"].first { FileManager.default.isExecutableFile(atPath: $0) }

    @Test(.enabled(if: analyze != nil, "needs systemd-analyze (Debian's systemd)"))
    func systemdAcceptsTheUnits() throws {
        let runtime = try TestPaths.temporaryDirectory().path
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime)
        // Man pages are checked below, against docs/man (they are installed with the package).
        let verified = try CommandRunner.run(
            Self.analyze ?? "systemd-analyze", ["verify", "--man=no", "--user"] + Self.units, environment: ["XDG_RUNTIME_DIR": runtime])
        #expect(verified.status == 0 && verified.standardError.isEmpty, "\(verified.standardOutput)\(verified.standardError)")
    }

    @Test func theUnitsNameManPagesThatExistAndAreNeverEnabledByThePackage() throws {
        for unit in Self.units {
            let text = try String(contentsOfFile: unit, encoding: .utf8)
            let pages = text.split(separator: "\n").filter { $0.hasPrefix("Documentation=") }.flatMap {
                $0.dropFirst("Documentation=".count).split(separator: " ")
            }
            #expect(!pages.isEmpty)
            for page in pages where page.hasPrefix("man:") {
                let name = page.dropFirst(4).replacingOccurrences(of: "(1)", with: "")
                #expect(FileManager.default.fileExists(atPath: TestPaths.root.appendingPathComponent("docs/man/\(name).1").path), "\(page)")
            }
        }
        let service = try String(contentsOfFile: Self.units[0], encoding: .utf8)
        #expect(service.contains("vigil account check --all") && service.contains("vigil certificates audit --check"))
    }

    /// Lines start with `<N>` only when standard output is the stream $JOURNAL_STREAM names.
    @Test func linesCarryTheirPriorityOnlyInTheJournal() throws {
        let directory = try TestPaths.temporaryDirectory().path
        let database = directory + "/vigil.sqlite"
        let script = """
            out="$1"; shift
            exec >"$out"
            JOURNAL_STREAM="$(stat -c %d:%i "$out")" "$@"
            """
        let journal = directory + "/journal.txt"
        let own: [String: String?] = ["XDG_STATE_HOME": directory + "/state", "XDG_CONFIG_HOME": directory + "/config", "JOURNAL_STREAM": nil]
        _ = try CommandRunner.run(
            "/bin/sh", ["-c", script, "sh", journal, TestPaths.vigilBinary, "certificates", "audit", "--check", "--database", database], environment: own)
        #expect(try String(contentsOfFile: journal, encoding: .utf8) == "<6>no approval needs attention\n")
        let plain = try CommandRunner.run(TestPaths.vigilBinary, ["certificates", "audit", "--check", "--database", database], environment: own)
        #expect(plain.standardOutput == "no approval needs attention\n", "a pipe is not the journal")
        // A stream that is not standard output's: no prefix either.
        let other = directory + "/other.txt"
        let elsewhere = try CommandRunner.run(
            "/bin/sh",
            [
                "-c", "touch \"$1\"; JOURNAL_STREAM=\"$(stat -c %d:%i \"$1\")\" \"$2\" certificates audit --check --database \"$3\"", "sh", other,
                TestPaths.vigilBinary, database,
            ], environment: own)
        #expect(elsewhere.standardOutput == "no approval needs attention\n")
    }
}
