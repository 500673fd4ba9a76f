import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// `vigil account`, moving an account: the move that account check offers, run as printed, and a
/// target chosen by the server that is never code.
extension AccountCommandTests {
    /// A server that moved (here: host 1 to host 2): the new server is reviewed, the stored
    /// password proved there before it moves with the account; a URL that is not a server is refused.
    @Test func anAccountMovesWithItsServer() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let id = try await addAlice(running)
            let newURL = running.url(host: 2, path: "")
            // Access headers were given for the old server: they do not follow the account.
            #expect(try CommandRunner.run("/usr/bin/sqlite3", [database, "UPDATE account SET accessHeaderNames = 'X-Service-Token';"]).status == 0)
            let before = running.simulator.journal.entries.count
            let moved = try await vigil(["account", "move", id, newURL, "--ca-file", TestPaths.caBundle])
            #expect(moved.status == 0 && moved.standardOutput.contains("the password moved with it"), "\(moved.standardOutput)\(moved.standardError)")
            #expect(
                moved.standardOutput.contains("access headers were given for") && moved.standardOutput.contains("not carried to"), "\(moved.standardOutput)")
            #expect(!(try await vigil(["account", "show", id]).standardOutput.contains("access headers:")), "the moved account keeps no access headers")
            let after = running.simulator.journal.entries.dropFirst(before)
            #expect(after.allSatisfy { $0.host == "127.0.0.2" }, "only the new server was asked")
            #expect(after.first?.path == "/status.php" && !(after.first?.authorization ?? true), "reviewed before the password went there")
            #expect(try await vigil(["account", "show", id]).standardOutput.contains(newURL))
            #expect(try await vigil(["account", "check", id, "--ca-file", TestPaths.caBundle]).status == 0)
            let nowhere = try await vigil(["account", "move", id, "https://127.0.0.1:1", "--ca-file", TestPaths.caBundle])
            #expect(nowhere.status == 2)
            #expect(try await vigil(["account", "show", id]).standardOutput.contains(newURL), "a failed move changes nothing")
            #expect(try await vigil(["certificates", "audit"]).standardOutput.contains("account-moved"))
            #expect(try await vigil(["account", "remove", id]).status == 0)
        }
    }

    /// A server that chooses where its files moved chooses text inside the command Vigil offers:
    /// `account check` quotes it, so the printed line pasted into a shell runs `vigil account move`
    /// with the server's URL as one word and runs nothing of the server's; JSON gives the argv.
    @Test func aMoveTargetChosenByTheServerIsNeverCode() async throws {
        // The same port is bound again after a stop (outside the ephemeral range, as anOutageIsExit75NotAnError does).
        var started: RunningSimulator?
        for _ in 0..<8 where started == nil { started = try? await RunningSimulator("basic-only", port: Int.random(in: 20_000..<30_000)) }
        let before = try #require(started)
        let port = before.listeners.first { $0.host == 1 && $0.scheme == "https" }?.port ?? 0
        _ = try await addAlice(before)
        await before.stop()
        // The same server, now answering the files root with a 301 whose path carries shell code.
        let fixtures = try TestPaths.temporaryDirectory().path
        var moved = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: RunningSimulator.fixtures + "/server-moved.json"))) as? [String: Any])
        moved["behaviour"] = ["kind": "redirect", "status": 301, "target": "{https:2}/$(touch$IFS'pwned');touch${IFS}pwned2{path}"]
        try JSONSerialization.data(withJSONObject: moved).write(to: URL(fileURLWithPath: fixtures + "/server-moved.json"))
        let running = try await RunningSimulator("server-moved", port: port, fixtures: fixtures)
        do {
            try await checkTheMoveIsQuoted()
        } catch {
            await running.stop()
            throw error
        }
        await running.stop()
    }

    func checkTheMoveIsQuoted() async throws {
        let checked = try await vigil(["account", "check", "--all", "--ca-file", TestPaths.caBundle])
        #expect(checked.status == 1, "\(checked.standardOutput)\(checked.standardError)")
        let marker = "To carry the account there: "
        let output = checked.standardOutput
        let found = output.range(of: marker).map { String(output[$0.upperBound...].prefix { $0 != "\n" }) }
        let line = try #require(found, "\(output)")
        let json = try await vigil(["account", "check", "--all", "--ca-file", TestPaths.caBundle, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8))
        let row = try #require(
            (object as? [[String: Any]])?.first ?? ((object as? [String: Any])?["accounts"] as? [[String: Any]])?.first, "\(json.standardOutput)")
        let offered = try #require(row["moved"] as? [String: Any])
        let argv = try #require(offered["argv"] as? [String])
        let newServer = try #require(offered["newServer"] as? String)
        let id = try #require(row["id"] as? String)
        // The database this check was given is named too: the command acts on the same accounts.
        #expect(argv == ["vigil", "account", "move", id, newServer, "--database=\(database)"] && newServer.contains("$(touch"), "\(argv)")
        let command = try #require(offered["command"] as? String)
        #expect(line.hasPrefix(command), "the text shows the command JSON gives: \(line)")
        // Pasted into sh with `vigil` a recorder: one URL word, nothing of the server's run.
        let directory = try TestPaths.temporaryDirectory().path
        let pasted = try CommandRunner.run(
            "/bin/sh", ["-c", "cd \"$1\" && vigil() { printf '%s\\n' \"$@\" > recorded; }; " + command, "sh", directory])
        #expect(pasted.status == 0, "\(pasted.standardError)")
        #expect(try String(contentsOfFile: directory + "/recorded", encoding: .utf8) == argv.dropFirst().joined(separator: "\n") + "\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["recorded"], "the server's code did not run")
    }

    /// The move `account check` offers works as printed: the new server is judged with the CA
    /// certificates kept with the account, as the check judged it (no --ca-file on either).
    @Test func theOfferedMoveWorksAsPrinted() async throws {
        var started: RunningSimulator?
        for _ in 0..<8 where started == nil { started = try? await RunningSimulator("basic-only", port: Int.random(in: 20_000..<30_000)) }
        let before = try #require(started)
        let port = before.listeners.first { $0.host == 1 && $0.scheme == "https" }?.port ?? 0
        let id = try await addAlice(before)
        await before.stop()
        let running = try await RunningSimulator("server-moved", port: port)
        do {
            try await runTheOfferedMove(id)
        } catch {
            await running.stop()
            throw error
        }
        await running.stop()
    }

    func runTheOfferedMove(_ id: String) async throws {
        let json = try await vigil(["account", "check", id, "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]], "\(json.standardOutput)")
        let offered = try #require(rows.first?["moved"] as? [String: Any], "\(json.standardOutput)")
        #expect(offered["certificateTrusted"] as? Bool == true, "\(offered)")
        let argv = try #require(offered["argv"] as? [String])
        #expect(argv.first == "vigil" && argv.count == 6, "\(argv)")
        #expect(argv.last == "--database=\(database)", "the database the check was given: \(argv)")
        let moved = try await CommandRunner.vigilDetached(Array(argv.dropFirst()))
        #expect(moved.status == 0, "run as printed: \(moved.standardOutput)\(moved.standardError)")
        let after = try await vigil(["account", "check", id])
        #expect(after.status == 0 && after.standardOutput.contains(": OK: "), "\(after.standardOutput)\(after.standardError)")
    }
}
