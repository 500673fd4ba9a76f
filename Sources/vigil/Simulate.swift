import ArgumentParser
import Foundation
import VigilLogging
import VigilPaths
import VigilSecrets
import VigilSettings
import VigilSimulator
import VigilSuite

extension Vigil {
    /// `vigil simulate`: the CI security suite. Every scenario played against Vigil's own account
    /// setup, the outcome checked exactly and four invariants on every scenario.
    struct Simulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "simulate",
            abstract: "Hold Vigil's client to every simulator scenario: the CI security suite.",
            discussion: """
                Starts the simulator in this process on free loopback ports and, for each scenario, drives the
                real account setup (the code of `vigil account add`) as the fixture's scripted user: declining,
                approving a certificate by fingerprint, approving a redirect, or logging in through a browser
                stand-in. Each scenario gets private data, config and state directories; the run gets a private
                Secret Service (its own D-Bus session and an unlocked GNOME Keyring), removed at the end.
                The outcome is checked exactly, and four invariants on every scenario: no credential at a host
                whose certificate was neither trusted nor approved or over plain HTTP (the simulator's journal);
                no planted secret in a log line (trace level, HTTP logging on) or (3) in a file; (4) the keyring
                holds exactly the expected items, and none after the account is removed. Scenarios listed in
                known-gaps.json beside the fixtures may miss their outcome (never an invariant); one that passes
                fails the suite until it leaves the list. Exit codes: 0 every scenario passed or is a known gap
                (with --client: not exercised or not applicable); 1 a scenario failed; 2 the suite could not run
                (no D-Bus or keyring daemon, a malformed fixture or known-gaps.json) or the --client could not be
                scored; 64 usage.
                """
        )

        @Option(name: .customLong("scenario"), help: "Play only scenarios matching this glob (repeatable; default: all).")
        var scenarios: [String] = []
        @OptionGroup var paths: SimulatorPaths
        @Option(help: "Scenarios played at once (default: the number of cores).")
        var jobs: Int?
        @Option(help: "Play the I-th of N deterministic parts of the sorted list (I/N), for N parallel CI jobs.")
        var shard: String?
        @Flag(help: "List the selected scenarios and their expected outcomes; play nothing.")
        var list = false
        @Flag(help: "Print the results as JSON instead of the table.")
        var json = false
        @Option(help: "Write a JUnit XML report to this file (known gaps as skipped).")
        var junit: String?
        @Option(help: "Keep each scenario's directories (database, logs, settings) under this directory.")
        var keep: String?
        @Option(help: "Seconds to wait for each connection and answer.")
        var timeout: Double = 10
        @Option(
            help: ArgumentHelp(
                "Hold another sync client to the scenarios: a built-in profile (curl, owncloudcmd, nextcloudcmd, rclone) or a command template.",
                discussion:
                    "A command is split on spaces and run without a shell, with {url} {host} {port} {user} {password} {ca_file} {dir} {tmp} filled in. The verdict comes from what reached the simulated hosts, not from the client's word: two scores, safe and works (docs/ci.md). The client must log in to valid first, or it is not scored (exit 2). Scenarios it cannot be given (an account set up before, pinned host names, a Vigil-only setting) are not applicable; a fault it never reaches is not exercised.",
                valueName: "profile|command"))
        var client: String?
        @Option(
            help: ArgumentHelp("Hold the client a profile file describes (JSON) to the scenarios.", valueName: "file"), completion: .file(extensions: ["json"]))
        var clientProfile: String?
        @OptionGroup var logOptions: LogOptions

        func validate() throws {
            if let jobs, !(1...64).contains(jobs) { throw ValidationError("--jobs must be from 1 to 64.") }
            if let shard {
                do { _ = try SuiteSelection.shard(shard) } catch let error as SuiteError { throw ValidationError(error.reason) }
            }
            guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be between 0 and 600 seconds.") }
            if client != nil && clientProfile != nil { throw ValidationError("--client and --client-profile name the client twice; give one.") }
        }

        /// Before any scenario: a canary secret must land in the private keyring's own files (so no
        /// scenario can touch the user's keyring), and leave again.
        /// The external client: a built-in profile by name, a command template, or a profile file.
        static func profile(client: String?, file: String?, fixtures: String) throws -> ClientProfile? {
            if let file { return try ClientProfile.load(path: file) }
            guard let client else { return nil }
            let directory = (fixtures as NSString).appendingPathComponent("clients")
            if let path = ClientProfile.builtIn(client, in: directory) { return try ClientProfile.load(path: path) }
            guard client.contains(" ") || client.contains("/") else {
                let names = ClientProfile.builtInNames(in: directory)
                throw SuiteError(
                    .invalidFixture,
                    "--client \(SafeText.escaped(client)): no such profile (built in: \(names.joined(separator: ", "))); a command needs its arguments.")
            }
            return try ClientProfile.adHoc(client)
        }

        /// `path` made absolute against the current directory.
        static func absolute(_ path: String) -> String {
            let expanded = (path as NSString).expandingTildeInPath
            let full = expanded.hasPrefix("/") ? expanded : FileManager.default.currentDirectoryPath + "/" + expanded
            return (full as NSString).standardizingPath
        }

        /// The run's directory: a fresh one under the temporary directory; with `--keep DIR`, DIR
        /// itself when it is new or empty, otherwise a fresh folder inside it. Always absolute
        /// (every path handed to a client must resolve from its own directory), and never one
        /// that holds anything the suite did not create.
        static func workDirectory(keep: String?) throws -> String {
            guard let keep else { return NSTemporaryDirectory() + "vigil-simulate-" + UUID().uuidString.prefix(8).lowercased() }
            let directory = absolute(keep)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
                guard isDirectory.boolValue else { throw SuiteError(.workDirectory, "--keep \(SafeText.escaped(keep)) is a file, not a directory.") }
                let contents = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
                if !contents.isEmpty {
                    let stamp = ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
                    return directory + "/vigil-simulate-" + stamp + "-" + UUID().uuidString.prefix(4).lowercased()
                }
            }
            return directory
        }

        static func checkPrivateKeyring(_ service: PrivateSecretService) throws {
            let store = KeyringSecretStore()
            let key = try SecretKey(account: "vigil-simulate-canary", kind: .password)
            try store.store(Secret("canary-\(UUID().uuidString)"), for: key)
            defer { _ = try? store.remove(key) }
            let files = (try? FileManager.default.contentsOfDirectory(atPath: service.keyringDirectory)) ?? []
            guard files.contains(where: { $0.hasSuffix(".keyring") }) else {
                throw SuiteError(.secretService, "the canary secret did not reach \(service.keyringDirectory)")
            }
        }

        /// SIGINT, SIGTERM, SIGHUP: the private Secret Service is stopped and removed (and the run's
        /// directory, unless kept), then exit 130.
        static func stopOnSignals(_ service: PrivateSecretService, removing work: String?) {
            for number in [SIGINT, SIGTERM, SIGHUP] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler {
                    service.stop()
                    if let work { try? FileManager.default.removeItem(atPath: work) }
                    FileHandle.standardError.write(Data("vigil: simulate interrupted; its Secret Service was stopped.\n".utf8))
                    // _exit: the scenarios' threads are still running, and exit()'s global
                    // destructors would pull their state from under them.
                    _exit(130)
                }
                source.resume()
                signalSources.append(source)
            }
        }

        nonisolated(unsafe) static var signalSources: [any DispatchSourceSignal] = []

        func run() async throws {
            let (settings, _) = CommandContext.start(logOptions)
            let fixtures = paths.fixturesDirectory(settings[.simulatorFixtures])
            let library: ScenarioLibrary
            let gaps: KnownGaps
            do {
                library = try ScenarioLibrary(directory: fixtures)
                gaps = try KnownGaps(path: (fixtures as NSString).appendingPathComponent(ScenarioLibrary.knownGapsFile), scenarios: library.scenarios)
            } catch let error as SimulatorError {
                ExitStatus.fail(error.reason)
            } catch let error as SuiteError {
                ExitStatus.fail(error.reason)
            }
            let external: ClientProfile?
            do {
                external = try Self.profile(client: client, file: clientProfile, fixtures: fixtures)
            } catch let error as SuiteError {
                ExitStatus.fail(error.reason, status: ExitStatus.usage)
            }
            let selection = SuiteSelection(globs: scenarios, shard: try shard.map(SuiteSelection.shard))
            let selected = selection.select(library.scenarios)
            guard !selected.isEmpty else {
                ExitStatus.fail("no scenario matches \(scenarios.joined(separator: ", ")) in \(fixtures); see vigil simulate --list.", status: ExitStatus.usage)
            }
            if list {
                let width = selected.map(\.name.count).max() ?? 20
                for scenario in selected {
                    let gap = gaps.gaps[scenario.name].map { "  (known gap: \($0.reason))" } ?? ""
                    print(scenario.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + ScenarioJudge(scenario: scenario).expected + gap)
                }
                return
            }

            let work: String
            do { work = try Self.workDirectory(keep: keep) } catch let error as SuiteError { ExitStatus.fail(error.reason) }
            let home = work + "/run.home", temporary = work + "/run.tmp"  // scenario names have no dot
            do {
                for directory in [work, home, temporary] {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                }
            } catch {
                ExitStatus.fail("cannot create \(work): \(error.localizedDescription)")
            }
            let service: PrivateSecretService
            do { service = try PrivateSecretService.start() } catch let error as SuiteError { ExitStatus.fail(error.reason) }
            Self.stopOnSignals(service, removing: keep == nil ? work : nil)
            // The client runs in this process: whatever it might write under HOME, the XDG
            // directories or TMPDIR goes to the run's directories, which are scanned afterwards.
            for (name, value) in XDGDirectories.environment(home: home).merging(["TMPDIR": temporary], uniquingKeysWith: { $1 }) {
                setenv(name, value, 1)
            }
            do {
                try Self.checkPrivateKeyring(service)
            } catch {
                service.stop()
                ExitStatus.fail("the suite's own keyring does not answer as expected, so nothing was run: \(error)")
            }

            // Known gaps are Vigil's own; another client is held to every outcome.
            var suite = SimulationSuite(
                scenarios: selected, knownGaps: external == nil ? gaps : KnownGaps(), certificatesDirectory: paths.certificatesDirectory(fixtures: fixtures),
                workDirectory: work, secrets: KeyringSecretStore())
            if let external { suite.client = ExternalClient(profile: external) }
            suite.preflight = external == nil ? nil : library.scenarios.first { $0.name == "valid" }
            suite.jobs = jobs ?? ProcessInfo.processInfo.activeProcessorCount
            suite.keep = keep != nil
            suite.timeout = .milliseconds(Int64(timeout * 1000))
            suite.requireEmptyKeyring = true
            suite.scanDirectories = [home, temporary]
            let showProgress = !json && isatty(STDOUT_FILENO) == 1
            let report = await suite.run { result in
                if showProgress { FileHandle.standardOutput.write(Data((SuiteReport.progressLine(result) + "\n").utf8)) }
            }
            if keep == nil { try? FileManager.default.removeItem(atPath: work) }

            if let junit {
                do {
                    try Data(report.junit().utf8).write(to: URL(fileURLWithPath: junit), options: .atomic)
                } catch {
                    service.stop()
                    ExitStatus.fail("cannot write the JUnit report \(junit): \(error.localizedDescription)")
                }
            }
            if json {
                print(try JSONOutput.text(report))
            } else {
                if showProgress { print() }
                if let external { print("client: \(SafeText.escaped(external.name)) (\(SafeText.escaped(external.summary ?? "a profile")))") }
                print(report.table(), terminator: "")
                if let keep {
                    print("evidence kept in \(SafeText.escaped(work))" + (work == Self.absolute(keep) ? "" : " (\(SafeText.escaped(keep)) was not empty)"))
                }
            }
            service.stop()
            fflush(nil)
            // Exit now, without global destructors: idle GLib (libsecret) and NIO threads would
            // otherwise hold the process for seconds, or meet destroyed globals. A client that
            // could not be scored is exit 2: the suite could not hold it to the scenarios.
            _exit(report.notScored != nil ? ExitStatus.error : report.succeeded ? 0 : ExitStatus.untrusted)
        }
    }
}
