import ArgumentParser
import Foundation
import VigilSecrets
import VigilSettings
import VigilSimulator
import VigilSuite

extension Vigil {
    /// `vigil simulate`: the CI security suite. Every scenario played against Vigil's own account
    /// setup, the outcome checked exactly and four invariants on every scenario.
    struct Simulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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
                fails the suite until it leaves the list. Exit codes: 0 every scenario passed or is a known gap;
                1 a scenario failed; 2 the suite could not run (no D-Bus or keyring daemon, a malformed fixture or
                known-gaps.json); 64 usage.
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
        @OptionGroup var logOptions: LogOptions

        func validate() throws {
            if let jobs, !(1...64).contains(jobs) { throw ValidationError("--jobs must be from 1 to 64.") }
            if let shard {
                do { _ = try SuiteSelection.shard(shard) } catch let error as SuiteError { throw ValidationError(error.reason) }
            }
            guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be between 0 and 600 seconds.") }
        }

        /// Before any scenario: a canary secret must land in the private keyring's own files (so no
        /// scenario can touch the user's keyring), and leave again.
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
            let fixtures = paths.fixturesDirectory(settings.string("host-simulator.fixtures"))
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
            if let keep {
                work = (keep as NSString).standardizingPath
            } else {
                work = NSTemporaryDirectory() + "vigil-simulate-" + UUID().uuidString.prefix(8).lowercased()
            }
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
            for (name, value) in ["HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_DATA_HOME": home + "/.local/share",
                                  "XDG_STATE_HOME": home + "/.local/state", "XDG_CACHE_HOME": home + "/.cache", "TMPDIR": temporary] {
                setenv(name, value, 1)
            }
            do {
                try Self.checkPrivateKeyring(service)
            } catch {
                service.stop()
                ExitStatus.fail("the suite's own keyring does not answer as expected, so nothing was run: \(error)")
            }

            var suite = SimulationSuite(scenarios: selected, knownGaps: gaps, certificatesDirectory: paths.certificatesDirectory(fixtures: fixtures),
                                        workDirectory: work, secrets: KeyringSecretStore())
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
                print(report.table(), terminator: "")
            }
            service.stop()
            fflush(nil)
            // Exit now, without global destructors: idle GLib (libsecret) and NIO threads would
            // otherwise hold the process for seconds, or meet destroyed globals.
            _exit(report.succeeded ? 0 : ExitStatus.untrusted)
        }
    }
}
