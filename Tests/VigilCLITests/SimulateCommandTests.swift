import Foundation
import Testing
import VigilTestSupport

/// `vigil simulate` as CI runs it: its own private Secret Service, exit codes, JUnit, from any directory.
@Suite("vigil simulate (CLI)")
struct SimulateCommandTests {
    @Test func redirectsFromAnotherDirectoryWithAJUnitReport() throws {
        let directory = try TestPaths.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let junit = directory + "/simulate.xml"
        let result = try CommandRunner.vigil(
            [
                "simulate", "--scenario", "redirect-cross-host-30?", "--scenario", "redirect-downgrade", "--scenario", "reject-downloads-500",
                "--jobs", "2", "--junit", junit,
            ], currentDirectory: directory)
        #expect(result.status == 0, "\(result.standardOutput)\n\(result.standardError)")
        #expect(
            result.standardOutput.contains("redirect-downgrade") && result.standardOutput.contains("6 scenarios, 6 passed, 0 failed, 0 known gaps remain"),
            "\(result.standardOutput)")
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.components(separatedBy: "<testcase ").count - 1 == 6)
        #expect(xml.contains("failures=\"0\"") && !xml.contains("<skipped"))
    }

    /// On a terminal, each scenario's line says how far the run is (`[1/2]`); in a pipe (CI's
    /// log) only the table (issue 39).
    @Test func aTerminalSeesHowFarTheRunIs() throws {
        let own = try TestPaths.temporaryDirectory().path
        let command = [TestPaths.vigilBinary, "simulate", "--scenario", "valid", "--scenario", "self-signed"].map { "'\($0)'" }.joined(separator: " ")
        let onTerminal = try CommandRunner.run(
            "/usr/bin/script", ["-qec", command, "/dev/null"], environment: ["XDG_STATE_HOME": own + "/state", "XDG_CONFIG_HOME": own + "/config"],
            input: Data())
        #expect(onTerminal.status == 0, "\(onTerminal.standardOutput)")
        #expect(onTerminal.standardOutput.contains("[1/2] pass ") && onTerminal.standardOutput.contains("[2/2] pass "), "\(onTerminal.standardOutput)")
        let piped = try CommandRunner.vigil(["simulate", "--scenario", "valid", "--scenario", "self-signed"])
        #expect(piped.status == 0 && !piped.standardOutput.contains("[1/2]"))
    }

    /// A command that fails throws to the launcher, so its `defer` runs (issue 38): simulate's
    /// private Secret Service is stopped and its directory removed when the JUnit report cannot be
    /// written, with no daemon left on its bus.
    @Test func aFailingCommandsDeferRuns() throws {
        let temporary = try TestPaths.temporaryDirectory().path
        let result = try CommandRunner.vigil(
            ["simulate", "--scenario", "valid", "--junit", temporary + "/no-such-directory/simulate.xml"], environment: ["TMPDIR": temporary])
        #expect(result.status == 2 && result.standardError.contains("cannot write the JUnit report"), "\(result.standardError)")
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary).filter { $0.hasPrefix("vigil-") }
        #expect(left.isEmpty, "the private Secret Service's or the run's directory is left: \(left)")
        let daemons = try FileManager.default.contentsOfDirectory(atPath: "/proc").filter { $0.allSatisfy(\.isNumber) }.filter { pid in
            ((try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "").contains(temporary)
        }
        #expect(daemons.isEmpty, "a daemon of the run is still running: \(daemons)")
    }

    /// SIGTERM during a run: the private Secret Service and the run's directory are gone, no
    /// daemon of the run is left, and the process ends as a shell reports the signal (143).
    @Test func aSignalDuringARunLeavesNothingBehind() async throws {
        let temporary = try TestPaths.temporaryDirectory().path
        let errors = temporary + "/../simulate-\(UUID().uuidString.prefix(8)).err"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errors) }
        var environment = ProcessInfo.processInfo.environment
        for (key, value) in CommandRunner.hermetic(["TMPDIR": temporary]) { environment[key] = value }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestPaths.vigilBinary)
        process.arguments = ["simulate"]
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        func started() -> Bool { ((try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []).contains { $0.hasPrefix("vigil-secret-service-") } }
        // Until its Secret Service has started (a bound on the loop, not a timing assertion).
        for _ in 0..<600 where !started() { try await Task.sleep(for: .milliseconds(50)) }
        #expect(started(), "the run's Secret Service started")
        kill(process.processIdentifier, SIGTERM)
        let ended = await CommandRunner.waitForExit(process)
        #expect(ended?.exited == true && ended?.status == 143, "128 + SIGTERM, as a shell reports it: \(String(describing: ended))")
        let said = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(said.contains("vigil: simulate interrupted (SIGTERM); its Secret Service was stopped."), "\(said)")
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary)
        #expect(left.isEmpty, "left behind: \(left)")
        let daemons = try FileManager.default.contentsOfDirectory(atPath: "/proc").filter { $0.allSatisfy(\.isNumber) }.filter { pid in
            ((try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? "").contains(temporary)
        }
        #expect(daemons.isEmpty, "a daemon of the run is still running: \(daemons)")
    }

    @Test func listAndJSON() throws {
        let list = try CommandRunner.vigil(["simulate", "--list", "--scenario", "self-signed"])
        #expect(list.status == 0)
        #expect(list.standardOutput == "self-signed  ask-certificate\n")
        let json = try CommandRunner.vigil(["simulate", "--json", "--scenario", "self-signed"])
        #expect(json.status == 0, "\(json.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        #expect(results.first?["got"] as? String == "ask-certificate" && results.first?["status"] as? String == "passed")
        #expect(object["schemaVersion"] as? Int == 2)
        #expect((results.first?["invariants"] as? [String: Any])?["files"] as? Bool == true, "Vigil's own client: every invariant checked")
    }

    @Test(arguments: [["simulate", "--shard", "0/3"], ["simulate", "--jobs", "0"], ["simulate", "--scenario", "no-such-*"], ["simulate", "--bogus"]])
    func usageErrors(arguments: [String]) throws {
        let result = try CommandRunner.vigil(arguments)
        #expect(result.status == 64, "\(arguments): \(result.standardError)")
    }

    @Test func aMalformedFixtureOrKnownGapsStopsTheSuite() throws {
        let directory = try TestPaths.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try
            #"{"name": "x", "summary": "x", "outcome": "ask-certificate", "reference": {"represents": "x"}, "behaviour": {"kind": "normal"}, "client": {"approve": ["certificate"]}}"#
            .write(toFile: directory + "/x.json", atomically: true, encoding: .utf8)
        let fixture = try CommandRunner.vigil(["simulate", "--fixtures", directory])
        #expect(fixture.status == 2)
        #expect(fixture.standardError.contains("x.json: field client.then is required"), "\(fixture.standardError)")

        try #"{"name": "x", "summary": "x", "outcome": "login", "reference": {"represents": "x"}, "behaviour": {"kind": "normal"}}"#
            .write(toFile: directory + "/x.json", atomically: true, encoding: .utf8)
        try #"{"x": {"outcome": "refuse", "got": "login", "reason": "r"}}"#.write(toFile: directory + "/known-gaps.json", atomically: true, encoding: .utf8)
        let gaps = try CommandRunner.vigil(["simulate", "--fixtures", directory])
        #expect(gaps.status == 2)
        #expect(gaps.standardError.contains("known-gaps.json: x: field outcome is refuse, but the fixture expects login"), "\(gaps.standardError)")
    }

    /// A user's own fixture, with the test PKI found without the repository as working directory.
    @Test func aUsersOwnFixtureThatFails() throws {
        let directory = try TestPaths.temporaryDirectory().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Claims a self-signed server should log in silently: Vigil asks instead, so the suite fails.
        try
            #"{"name": "silent-self-signed", "summary": "x", "outcome": "login", "reference": {"represents": "x"}, "certificates": {"127.0.0.1": "self-signed"}, "behaviour": {"kind": "normal"}}"#
            .write(toFile: directory + "/silent.json", atomically: true, encoding: .utf8)
        let junit = directory + "/out.xml"
        let result = try CommandRunner.vigil(["simulate", "--fixtures", directory, "--junit", junit], currentDirectory: directory)
        #expect(result.status == 1, "\(result.standardOutput)\n\(result.standardError)")
        #expect(result.standardOutput.contains("silent-self-signed: Expected login, got ask-certificate"), "\(result.standardOutput)")
        #expect(try String(contentsOfFile: junit, encoding: .utf8).contains("<failure message=\"Expected login, got ask-certificate"))
    }
}
