import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// A keyring that is locked (what the nightly vigil-check timer meets when no login unlocked it)
/// is said as such by `account check` and `account show`, and nothing reaches the server: never a
/// server's 401 made up. Each run has a Secret Service of its own (a nested D-Bus session with
/// GNOME Keyring), so that locking it cannot disturb the other keyring tests.
enum NestedKeyring {
    static let canRun = ["/usr/bin/dbus-run-session", "/usr/bin/gnome-keyring-daemon", "/usr/bin/gdbus"].allSatisfy {
        FileManager.default.isExecutableFile(atPath: $0)
    }
}

@Suite("A locked keyring", .enabled(if: NestedKeyring.canRun, "needs dbus-run-session, gnome-keyring-daemon and gdbus (the bootstrap installs them)"))
struct LockedKeyringTests {
    /// Adds an account, checks it with the keyring open (user agent `open-check`), locks the
    /// default collection over D-Bus, then checks (`locked-check`) and shows it.
    static let script = """
        set -u
        printf 'alice-test-password\\n' | "$VIGIL" account add "$SERVER" --user alice --password-stdin --ca-file "$CA" --database "$DB" >/dev/null 2>"$DIR/add.err" || { cat "$DIR/add.err"; exit 90; }
        ID=$("$VIGIL" account list --json --database "$DB" | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["id"])')
        VIGIL_HTTP_USER_AGENT=open-check "$VIGIL" account check "$ID" --database "$DB" >/dev/null || exit 91
        gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \\
          --method org.freedesktop.Secret.Service.Lock "['/org/freedesktop/secrets/aliases/default']" >/dev/null || exit 92
        VIGIL_HTTP_USER_AGENT=locked-check "$VIGIL" account check "$ID" --database "$DB" --json >"$DIR/check.json" 2>"$DIR/check.err"
        echo "$?" >"$DIR/check.status"
        VIGIL_HTTP_USER_AGENT=locked-check "$VIGIL" account check "$ID" --database "$DB" >"$DIR/check.txt" 2>&1
        "$VIGIL" account show "$ID" --database "$DB" >"$DIR/show.txt" 2>&1
        "$VIGIL" account show "$ID" --database "$DB" --json >"$DIR/show.json" 2>&1
        # The daemon started again without an unlock, as at a boot with lingering: the keyring loads
        # locked, its attributes hashed (they match a search but cannot be read back).
        gnome-keyring-daemon --replace --components=secrets --daemonize >/dev/null 2>&1 || exit 93
        VIGIL_HTTP_USER_AGENT=locked-check "$VIGIL" account check "$ID" --database "$DB" >"$DIR/restarted.txt" 2>&1
        "$VIGIL" account show "$ID" --database "$DB" >"$DIR/restarted-show.txt" 2>&1
        # The server goes away (the test stops it): a locked keyring is still said, not hidden.
        touch "$DIR/ready"
        while [ ! -f "$DIR/go" ]; do sleep 0.1; done
        "$VIGIL" account check "$ID" --database "$DB" --tolerate-unreachable >"$DIR/down.txt" 2>&1
        echo "$?" >"$DIR/down.status"
        """

    @Test func aLockedKeyringIsSaidAsItIsAndNothingIsSent() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let directory = try TestPaths.temporaryDirectory()
            var environment = CommandRunner.hermetic([
                "VIGIL": TestPaths.vigilBinary, "SERVER": running.url(path: ""), "CA": TestPaths.caBundle,
                "DB": directory.appendingPathComponent("vigil.sqlite").path, "DIR": directory.path,
            ])
            // The nested session's own bus, never the one the other keyring tests use.
            environment["DBUS_SESSION_BUS_ADDRESS"] = .some(nil)
            environment["KEYRING_SCRIPT"] = Self.script
            environment["KEYRING_SESSION"] = TestPaths.root.appendingPathComponent("scripts/keyring-session.sh").path
            // The session's daemons outlive it a moment: their output goes to a file, never to a
            // pipe this test waits on.
            async let ran = CommandRunner.runDetached(
                "/bin/sh", ["-c", "dbus-run-session -- \"$KEYRING_SESSION\" sh -c \"$KEYRING_SCRIPT\" >\"$DIR/session.log\" 2>&1 </dev/null"],
                environment: environment)
            func read(_ name: String) -> String { (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? "" }
            // The script waits at `ready` while the server is stopped, then goes on.
            for _ in 0..<600 where !FileManager.default.fileExists(atPath: directory.appendingPathComponent("ready").path) {
                try await Task.sleep(for: .milliseconds(100))
            }
            let journal = running.simulator.journal.entries
            await running.stop()
            _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("go").path, contents: Data())
            let session = try await ran
            #expect(session.status == 0, "\(read("session.log"))")

            #expect(journal.contains { $0.userAgent == "open-check" && $0.method == "PROPFIND" && $0.authorization }, "the open check was sent")
            let sent = journal.filter { $0.userAgent == "locked-check" }
            #expect(sent.isEmpty, "nothing reaches the server from a locked keyring: \(sent.map { "\($0.method) \($0.path)" })")

            #expect(read("check.status").trimmingCharacters(in: .whitespacesAndNewlines) == "2", "exit 2: \(read("check.err"))")
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(read("check.json").utf8)) as? [[String: Any]], "\(read("check.json"))")
            #expect(rows.first?["status"] as? String == "keyring-unavailable" && rows.first?["filesStatus"] == nil, "\(rows)")
            let text = read("check.txt")
            #expect(text.contains("KEYRING-UNAVAILABLE") && text.contains("The keyring is locked") && text.contains("Nothing was sent"), "\(text)")
            #expect(!text.contains("401") && !text.contains("NEEDS-LOGIN"), "never a server's refusal: \(text)")

            let show = read("show.txt")
            #expect(show.contains("status: KEYRING LOCKED") && !show.contains("status: ready"), "\(show)")
            #expect(show.contains("password: in the keyring, which is locked"), "\(show)")
            let restarted = read("restarted.txt")
            #expect(restarted.contains("KEYRING-UNAVAILABLE") && restarted.contains("The keyring is locked"), "a daemon started locked: \(restarted)")
            #expect(read("restarted-show.txt").contains("status: KEYRING LOCKED"), "\(read("restarted-show.txt"))")
            let down = read("down.txt")
            #expect(read("down.status").hasPrefix("2") && down.contains("KEYRING-UNAVAILABLE") && down.contains("could not be reached either"), "\(down)")
            #expect(read("show.json").contains("\"keyring\" : \"locked\""), "\(read("show.json"))")
        }
    }
}
