import ArgumentParser
import Foundation
import Synchronization
import VigilCommandLine
import VigilLogging
import VigilPaths
import VigilSecrets
import VigilSettings
import VigilSimulator
import VigilSuite

extension VigilSimulatorCommand {
    /// `vigil simulate`: the CI security suite. Every scenario played against Vigil's own account
    /// setup, the outcome checked exactly and four invariants on every scenario.
    struct Simulate: AsyncParsableCommand {
        static let configuration = SimulatorCommands.simulate
        @OptionGroup var options: SimulateOptions

        /// Exit 2: the client's network of its own cannot be made, why, and what to do.
        static func namespaceFailure(_ reason: String) -> CommandFailure {
            CommandFailure(
                "cannot run the client in a network namespace of its own: \(reason). Give --no-network-namespace to judge it in this machine's network (a weaker judgement), or see docs/ci.md for what a container needs."
            )
        }

        func validate() throws {
            if let shard = options.shard {
                do { _ = try SuiteSelection.shard(shard) } catch let error as SuiteError { throw ValidationError(error.reason) }
            }
        }

        /// Whether `program` is an executable in one of `$PATH`'s folders.
        static func onPath(_ program: String) -> Bool {
            (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").contains {
                FileManager.default.isExecutableFile(atPath: "\($0)/\(program)")
            }
        }

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

        /// Before any scenario: a canary secret must land in the private keyring's own files (so no
        /// scenario can touch the user's keyring), and leave again.
        static func checkPrivateKeyring(_ service: PrivateSecretService) async throws {
            let store = KeyringSecretStore()
            let key = try SecretKey(account: "vigil-simulate-canary", kind: .password)
            try await store.store(Secret("canary-\(UUID().uuidString)"), for: key)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: service.keyringDirectory)) ?? []
            _ = try? await store.remove(key)
            guard files.contains(where: { $0.hasSuffix(".keyring") }) else {
                throw SuiteError(.secretService, "the canary secret did not reach \(service.keyringDirectory)")
            }
        }

        /// SIGINT, SIGTERM, SIGHUP: the private Secret Service, once started (``SignalCleanup``), is
        /// stopped and removed, and the run's directory unless kept; then the process ends with
        /// 128 + the signal's number, as a shell reports it. Installed before the service starts, so
        /// that no signal finds it running without a handler that stops it.
        static func stopOnSignals(_ cleanup: SignalCleanup) {
            Interruption.watch([SIGINT, SIGTERM, SIGHUP]) { number in
                let stopped = cleanup.run()
                // At once: the scenarios' threads are still running, and exit()'s global
                // destructors would pull their state from under them.
                ImmediateExit.now(
                    128 + number, message: "vigil: simulate \(Interruption.describe(number))" + (stopped ? "; its Secret Service was stopped." : "."),
                    flushing: false)
            }
        }

        func run() async throws {
            let (settings, _) = try CommandContext.start(options.logOptions)
            let (scenarios, paths, jobs, shard, list, json, junit, keep, timeout, client, clientProfile) = (
                options.scenarios, options.paths, options.jobs, options.shard, options.list, options.json, options.junit, options.keep,
                options.timeout, options.client, options.clientProfile
            )
            let fixtures = paths.fixturesDirectory(settings[.simulatorFixtures])
            let library: ScenarioLibrary
            let gaps: KnownGaps
            do {
                library = try ScenarioLibrary(directory: fixtures)
                gaps = try KnownGaps(path: (fixtures as NSString).appendingPathComponent(ScenarioLibrary.knownGapsFile), scenarios: library.scenarios)
            } catch let error as SimulatorError {
                throw CommandFailure(error)
            } catch let error as SuiteError {
                throw CommandFailure(error)
            }
            let external: ClientProfile?
            do {
                external = try Self.profile(client: client, file: clientProfile, fixtures: fixtures)
            } catch let error as SuiteError {
                throw CommandFailure(error.reason, status: ExitStatus.usage)
            }
            let selection = SuiteSelection(globs: scenarios, shard: try shard.map(SuiteSelection.shard))
            let selected = selection.select(library.scenarios)
            guard !selected.isEmpty else {
                throw CommandFailure(
                    "no scenario matches \(scenarios.joined(separator: ", ")) in \(fixtures); see vigil simulate --list.", status: ExitStatus.usage)
            }
            if list {
                let width = selected.map(\.name.count).max() ?? 20
                for scenario in selected {
                    let gap = gaps.gaps[scenario.name].map { "  (known gap: \($0.reason))" } ?? ""
                    print(scenario.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + ScenarioJudge(scenario: scenario).expected + gap)
                }
                return
            }

            // An external client's run in a network of its own (the simulated hosts with it): this
            // program is executed again inside a new network namespace, before anything is made.
            var ipv6Local = false
            // Every external client runs in its cell, namespace or not (docs/threat-model.md).
            if external != nil, let problem = ClientCell.problem {
                throw CommandFailure("cannot run the client: \(problem).", status: ExitStatus.configuration)
            }
            if external != nil && !options.noNetworkNamespace {
                if let why = NetworkNamespace.proof {
                    // Executed again already (or a marker forged or inherited): never again, and
                    // nothing is changed in namespaces the run did not make.
                    if ProcessInfo.processInfo.environment[NetworkNamespace.variable] != nil {
                        throw Self.namespaceFailure("\(NetworkNamespace.variable) is set, but \(why); nothing was mounted or changed")
                    }
                    throw Self.namespaceFailure(NetworkNamespace.reexecute().reason)
                }
                do { ipv6Local = try NetworkNamespace.prepare() } catch let error as SuiteError { throw Self.namespaceFailure(error.reason) }
            }
            // Inside it: every host outside the scenarios answered by the recorder (a certificate
            // from a CA the client does not trust).
            var otherHosts: OtherHostRecorder?
            let otherNames = OtherHostNames()
            if NetworkNamespace.isInside {
                let certificates = paths.certificatesDirectory(fixtures: fixtures)
                do {
                    otherHosts = try await OtherHostRecorder.start(
                        certificate: certificates + "/untrusted-root-chain.pem", key: certificates + "/untrusted-root.key", names: otherNames)
                } catch {
                    throw Self.namespaceFailure("the recorder for hosts outside the scenarios cannot listen in the run's network namespace: \(error)")
                }
            }

            let work: String
            do { work = try Self.workDirectory(keep: keep) } catch let error as SuiteError { throw CommandFailure(error) }
            let home = work + "/run.home", temporary = work + "/run.tmp"  // scenario names have no dot
            // From here the run leaves nothing behind, however it ends (a signal, a failure, its verdict): the run's directory (unless
            // kept) and, once it starts, the private Secret Service.
            let cleanup = SignalCleanup(work: keep == nil ? work : nil)
            Self.stopOnSignals(cleanup)
            defer { _ = cleanup.run() }
            do {
                for directory in [work, home, temporary] {
                    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                }
            } catch {
                throw CommandFailure("cannot create \(work): \(error.localizedDescription)")
            }
            // Inside: every connection that is not for a simulated host redirected to the recorder,
            // and every name asked of the run's name server (each client gets its scenario's).
            var network: ClientNetwork?
            if let otherHosts {
                do {
                    let ipv6 = ipv6Local ? otherHosts.ipv6Ports : nil
                    try NetworkNamespace.redirect(tcpPort: otherHosts.port, udpPort: otherHosts.udpPort, ipv6: ipv6, directory: work)
                    let target = try NetworkNamespace.useNameServer(directory: work)
                    // Answers for the whole run (its handler holds it).
                    _ = try await NameServer.start(address: NetworkNamespace.runNameServer, names: [:], others: otherNames)
                    if ipv6 != nil { _ = try await NameServer.start(address: "::1", names: [:], others: otherNames) }
                    network = ClientNetwork(others: otherNames, resolverTarget: target)
                } catch let error as SuiteError {
                    throw Self.namespaceFailure(error.reason)
                } catch {
                    throw Self.namespaceFailure("the run's name server cannot listen in its network namespace: \(error)")
                }
            }
            // Vigil's own client logs in through a browser in most scenarios: the scripted user's
            // browser is curl. Without it every browser login would wait out its deadline.
            if external == nil, !Self.onPath("curl") {
                throw CommandFailure(
                    "vigil simulate needs curl: the scripted user's browser for the OAuth2, OpenID Connect and Nextcloud logins. Install it (Debian: apt-get install curl)."
                )
            }
            let service: PrivateSecretService
            do { service = try PrivateSecretService.start() } catch let error as SuiteError { throw CommandFailure(error) }
            // However the run ends from here (its verdict or a failure, both thrown to the launcher),
            // the private Secret Service stops with the cleanup above.
            cleanup.service = service
            // The client runs in this process: whatever it might write under HOME, the XDG
            // directories or TMPDIR goes to the run's directories, which are scanned afterwards.
            for (name, value) in XDGDirectories.environment(home: home).merging(["TMPDIR": temporary], uniquingKeysWith: { $1 }) {
                setenv(name, value, 1)
            }
            do {
                try await Self.checkPrivateKeyring(service)
            } catch {
                throw CommandFailure("the suite's own keyring does not answer as expected, so nothing was run: \(error)")
            }

            // Known gaps are Vigil's own; another client is held to every outcome.
            var suite = SimulationSuite(
                scenarios: selected, knownGaps: external == nil ? gaps : KnownGaps(), certificatesDirectory: paths.certificatesDirectory(fixtures: fixtures),
                workDirectory: work, secrets: KeyringSecretStore())
            if let external { suite.client = ExternalClient(profile: external) }
            suite.networkNamespace = external == nil ? nil : NetworkNamespace.isInside
            suite.otherHosts = otherHosts
            suite.network = network
            suite.preflight = external == nil ? nil : library.scenarios.first { $0.name == "valid" }
            suite.jobs = jobs ?? ProcessInfo.processInfo.activeProcessorCount
            suite.keep = keep != nil
            suite.timeout = .milliseconds(Int64(timeout * 1000))
            suite.requireEmptyKeyring = true
            suite.scanDirectories = [home, temporary]
            let showProgress = !json && isatty(STDOUT_FILENO) == 1
            let total = suite.scenarios.count
            let done = Mutex<Int>(0)
            let report = await suite.run { result in
                // Counted and written under one lock: the lines come out in their count's order.
                done.withLock { count in
                    count += 1
                    if showProgress { FileHandle.standardOutput.write(Data((SuiteReport.progressLine(result, done: count, of: total) + "\n").utf8)) }
                }
            }
            if let junit {
                do {
                    try Data(report.junit().utf8).write(to: URL(fileURLWithPath: junit), options: .atomic)
                } catch {
                    throw CommandFailure("cannot write the JUnit report \(junit): \(error.localizedDescription)")
                }
            }
            if json {
                print(try JSONOutput.text(report))
            } else {
                if showProgress { print() }
                if let external {
                    let network = NetworkNamespace.isInside ? "; in a network namespace of its own, only loopback" : "; in this machine's own network"
                    print("client: \(SafeText.escaped(external.name)) (\(SafeText.escaped(external.summary ?? "a profile"))\(network))")
                }
                print(report.table(), terminator: "")
                if let keep {
                    print("evidence kept in \(SafeText.escaped(work))" + (work == Self.absolute(keep) ? "" : " (\(SafeText.escaped(keep)) was not empty)"))
                }
            }
            // The cleanup's defer stops the Secret Service and removes the run's directory; the launcher then ends the process at once (ImmediateExit): idle GLib (libsecret) and NIO
            // threads would otherwise hold it for seconds, or meet destroyed globals. A client that
            // could not be scored is exit 2: the suite could not hold it to the scenarios.
            throw ImmediateExit(status: report.notScored != nil ? ExitStatus.error : report.succeeded ? 0 : ExitStatus.untrusted)
        }
    }
}
