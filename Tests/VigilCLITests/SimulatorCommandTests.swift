import Foundation
import Testing
import VigilTestSupport

@Suite("vigil simulator", .serialized)
struct SimulatorCommandTests {
    let fixtures = TestPaths.root.appendingPathComponent("mitm-fixtures").path

    @Test func scenariosAreListedOneLineEach() throws {
        let result = try CommandRunner.vigil(["simulator", "scenarios", "--fixtures", fixtures])
        #expect(result.status == 0)
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count >= 31)
        #expect(lines.contains { $0.hasPrefix("redirect-downgrade") && $0.contains("refuse") })
        let json = try CommandRunner.vigil(["simulator", "scenarios", "--fixtures", fixtures, "--json"])
        let array = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: Any]])
        #expect(array.count == lines.count)
    }

    /// vigil carries no server: the simulator's commands are parsed and documented by vigil and
    /// played by vigil-simulator beside it. Without it: help still works, and the command fails
    /// with a clear message and exit 2, naming where it looked.
    @Test func withoutVigilSimulatorBesideItTheCommandSaysSo() throws {
        let directory = try TestPaths.temporaryDirectory()
        let lone = directory.appendingPathComponent("vigil").path
        do { try FileManager.default.linkItem(atPath: TestPaths.vigilBinary, toPath: lone) } catch {
            try FileManager.default.copyItem(atPath: TestPaths.vigilBinary, toPath: lone)
        }
        let help = try CommandRunner.run(lone, ["simulate", "--help"])
        #expect(help.status == 0)
        #expect(help.standardOutput.contains("--client-profile"))
        let refused = try CommandRunner.run(lone, ["simulator", "scenarios", "--fixtures", fixtures])
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("vigil-simulator, which is not installed beside vigil"))
        #expect(refused.standardError.contains(directory.path))
        // Beside the real binary, it is found, whatever the working directory.
        let found = try CommandRunner.run(TestPaths.vigilBinary, ["simulator", "scenarios", "--fixtures", fixtures], currentDirectory: "/")
        #expect(found.status == 0)
        #expect(found.standardOutput.contains("redirect-downgrade"))
    }

    /// Starts `vigil simulator serve` and reads what it prints until the journal line.
    /// `ignoringInterrupts`: started as a non-interactive shell starts a background job, SIGINT ignored.
    func serve(_ arguments: [String], ignoringInterrupts: Bool = false) throws -> (process: Process, text: String) {
        let process = Process()
        let command = [TestPaths.vigilBinary, "simulator", "serve", "--fixtures", fixtures] + arguments
        if ignoringInterrupts {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "trap '' INT; exec \"$@\"", "sh"] + command
        } else {
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        var text = ""
        while !text.contains("journal:") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return (process, text)
    }

    /// What a person needs to play a scenario by hand is printed, and works as printed: the
    /// proxy with its login (curl goes through it with them), settings with the listeners' URLs
    /// in place of templates, the trust, and the premise of an account set up before.
    @Test func serveSaysHowToPlayAScenarioByHand() throws {
        let (process, text) = try serve(["--scenario", "proxy-auth-basic-over-http"])
        defer {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        let proxyLine = try #require(text.split(separator: "\n").first { $0.hasPrefix("proxy 1  http://127.0.0.1:") }, "\(text)")
        let words = proxyLine.split(separator: " ")
        let proxy = try #require(words.first { $0.hasPrefix("http://") }.map(String.init))
        let password = try #require(words.first { $0.hasPrefix("proxy-") && $0.count > 20 }.map { String($0.dropLast()) }, "\(proxyLine)")
        #expect(text.contains("the user's setting, for this play: VIGIL_CONNECTION_PROXY=\(proxy) vigil") && !text.contains("{proxy:1}"), "\(text)")
        #expect(text.contains("kept before: vigil proxy login \(proxy) --user proxy-user"), "\(text)")
        let host = try #require(text.split(separator: "\n").first { $0.hasPrefix("host 1") }?.split(separator: " ").first { $0.hasPrefix("https://") })
        let through = try CommandRunner.run(
            "/usr/bin/curl", ["-s", "--cacert", TestPaths.caBundle, "--proxy", proxy, "--proxy-user", "proxy-user:\(password)", "\(host)/status.php"])
        #expect(through.standardOutput.contains("\"installed\":true"), "the printed proxy and login work: \(through.standardError)")

        let (premised, said) = try serve(["--scenario", "mitm-trusted-ca"])
        kill(premised.processIdentifier, SIGTERM)
        premised.waitUntilExit()
        #expect(said.contains("premise: an account set up before") && said.contains("then vigil account check --all"), "\(said)")
        #expect(said.contains("the client trusts only: --ca-file ") && said.contains("interception-ca.pem"), "\(said)")
    }

    @Test func serveStartsPrintsItsHostsAndStopsOnSIGTERM() throws {
        let journal = try TestPaths.temporaryDirectory().appendingPathComponent("journal.jsonl").path
        let (process, text) = try serve(["--scenario", "valid", "--journal", journal])
        #expect(text.contains("host 1  https://127.0.0.1:"))
        #expect(text.contains("host 2  https://127.0.0.2:"))
        #expect(text.contains("host 3  https://127.0.0.3:"))
        #expect(text.contains("trust this CA file: "))
        #expect(text.contains("users: alice / alice-test-password"))
        let url = try #require(text.split(separator: "\n").first { $0.hasPrefix("host 1") }?.split(separator: " ").first { $0.hasPrefix("https://") })
        let curl = try CommandRunner.run("/usr/bin/curl", ["-s", "--cacert", TestPaths.caBundle, "\(url)/status.php"])
        #expect(curl.standardOutput.contains("\"installed\":true"))
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 143, "128 + SIGTERM, as a shell reports it")
        #expect(try String(contentsOfFile: journal, encoding: .utf8).contains("\"path\":\"/status.php\""))
    }

    /// Ctrl-C (SIGINT) stops it too (only SIGTERM's source used to be kept alive): exit 130 and a
    /// line that says it was interrupted.
    @Test(arguments: [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")])
    func anInterruptStopsTheSimulatorAndSaysSo(signal: Int32, name: String) throws {
        let (process, text) = try serve(["--scenario", "valid"])
        #expect(text.contains("host 1"))
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + signal)
        let error = (process.standardError as? Pipe).map { String(decoding: $0.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) } ?? ""
        #expect(error.contains("interrupted (\(name))"), "\(error)")
    }

    /// A signal the simulator started with ignored (a background job of a non-interactive shell)
    /// stays ignored: Ctrl-C meant for the foreground does not stop it; SIGTERM still does.
    @Test func anInterruptIgnoredAtStartStaysIgnored() throws {
        let (process, text) = try serve(["--scenario", "valid"], ignoringInterrupts: true)
        #expect(text.contains("host 1"))
        kill(process.processIdentifier, SIGINT)
        // SIGTERM after SIGINT: had SIGINT been watched, the process would already have ended with 130.
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + SIGTERM, "SIGINT stayed ignored; SIGTERM ended it")
    }

    /// A running vigil leaves no core dump (RLIMIT_CORE 0): a crash must not write a secret to disk.
    @Test func aRunningVigilCannotDumpCore() throws {
        let (process, text) = try serve(["--scenario", "valid"])
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        #expect(text.contains("journal:"))
        let limits = try String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max core file size") })
        #expect(line.split(separator: " ").dropFirst(4).prefix(2) == ["0", "0"], "\(line)")
    }

    /// A fixed port: every HTTPS host on it, plain HTTP on the next one.
    @Test func aFixedPortServesEveryHostAndPlainHTTPOnTheNext() throws {
        // A free port can be taken by a parallel test before serve binds it (N or N+1): try a few.
        var port = 0
        var started: (process: Process, text: String)?
        for _ in 0..<5 where started == nil {
            port = closedLoopbackPort()
            let attempt = try serve(["--scenario", "valid", "--port", String(port)])
            if attempt.text.contains("journal:") { started = attempt } else { attempt.process.waitUntilExit() }
        }
        let (process, text) = try #require(started, "serve never started on a free port")
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        for host in 1...3 { #expect(text.contains("host \(host)  https://127.0.0.\(host):\(port)"), "\(text)") }
        #expect(text.contains("http://127.0.0.1:\(port + 1)"), "\(text)")
        let curl = try CommandRunner.run("/usr/bin/curl", ["-s", "--cacert", TestPaths.caBundle, "https://127.0.0.2:\(port)/status.php"])
        #expect(curl.standardOutput.contains("\"installed\":true"))
    }

    @Test func aManInTheMiddleNamesTheGenuineHostItForwardsTo() throws {
        let (process, text) = try serve(["--scenario", "mitm-forged"])
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let line = try #require(text.split(separator: "\n").first { $0.contains("a man in the middle") }, "\(text)")
        let genuine = try #require(line.split(separator: " ").first { $0.hasPrefix("https://127.0.0.1:") })
        let curl = try CommandRunner.run("/usr/bin/curl", ["-s", "--cacert", TestPaths.caBundle, "\(genuine)/status.php"])
        #expect(curl.standardOutput.contains("\"installed\":true"), "the genuine host serves a trusted certificate")
    }

    @Test(arguments: ["0.0.0.0", "192.168.1.10"])
    func nonLoopbackBindIsRefused(address: String) throws {
        let result = try CommandRunner.vigil(["simulator", "serve", "--fixtures", fixtures, "--bind", address])
        #expect(result.status == 2)
        #expect(result.standardError.contains("not a loopback address"))
    }

    @Test func malformedFixtureIsReportedAndNothingServed() throws {
        let directory = try TestPaths.temporaryDirectory()
        try #"{"name": "x", "summary": "x", "outcome": "maybe", "reference": {"represents": "x"}, "behaviour": {"kind": "normal"}}"#
            .write(to: directory.appendingPathComponent("mine.json"), atomically: true, encoding: .utf8)
        let result = try CommandRunner.vigil(["simulator", "serve", "--fixtures", directory.path])
        #expect(result.status == 2)
        #expect(result.standardError.contains("mine.json: field outcome"))
        #expect(result.standardError.contains("allowed: refuse"))
    }

    @Test func unknownScenario() throws {
        let result = try CommandRunner.vigil(["simulator", "serve", "--fixtures", fixtures, "--scenario", "nope"])
        #expect(result.status == 2)
        #expect(result.standardError.contains("No scenario \"nope\""))
    }

    @Test func aPortInUseStopsServeWithAnError() throws {
        let listener = SilentListener()
        let result = try CommandRunner.vigil(["simulator", "serve", "--fixtures", fixtures, "--port", String(listener.port)])
        #expect(result.status == 2)
        #expect(result.standardError.contains("Address already in use"))
    }
}
