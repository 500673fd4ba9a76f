import ArgumentParser
import Foundation
import Logging
import VigilCommandLine
import VigilLogging
import VigilSettings
import VigilSimulator

extension VigilSimulatorCommand {
    struct Simulator: AsyncParsableCommand {
        static let configuration = SimulatorCommands.simulator(subcommands: [Serve.self, Scenarios.self])
    }
}

extension VigilSimulatorCommand.Simulator {
    struct Scenarios: ParsableCommand {
        static let configuration = SimulatorCommands.scenarios
        @OptionGroup var options: ScenariosOptions

        func run() throws {
            let (settings, _) = try CommandContext.start(options.logOptions)
            do {
                let library = try ScenarioLibrary(directory: options.paths.fixturesDirectory(settings[.simulatorFixtures]))
                if options.markdown {
                    print(ScenarioDocumentation.markdown(library), terminator: "")
                } else if options.json {
                    print(try JSONOutput.text(library.scenarios))
                } else {
                    let width = library.scenarios.map(\.name.count).max() ?? 20
                    for scenario in library.scenarios {
                        print(
                            "\(scenario.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(scenario.outcome.rawValue.padding(toLength: 15, withPad: " ", startingAt: 0))  \(scenario.summary)"
                        )
                    }
                }
            } catch let error as SimulatorError {
                throw CommandFailure(error)
            }
        }
    }

    struct Serve: AsyncParsableCommand {
        static let configuration = SimulatorCommands.serve
        @OptionGroup var options: ServeOptions

        func run() async throws {
            let (settings, logger) = try CommandContext.start(options.logOptions)
            let (scenario, paths, bind, port, journal, threads, upstream) = (
                options.scenario, options.paths, options.bind, options.port, options.journal, options.threads, options.upstream
            )
            do {
                let fixtures = paths.fixturesDirectory(settings[.simulatorFixtures])
                let library = try ScenarioLibrary(directory: fixtures)
                var names = scenario
                if names.isEmpty { names = settings[.simulatorActiveSimulations] ?? [] }
                if names.isEmpty { names = [settings[.simulatorScenario] ?? "valid"] }
                let chosen = try Scenario.combining(names.map { try library.scenario(namedOrSeeds: $0) })
                let several = names.count > 1
                let first = bind ?? settings[.simulatorBind] ?? "127.0.0.1"
                guard SimulatorAddress.isLoopback(first) else {
                    throw SimulatorError(.refusedAddress, "\(first) is not a loopback address; the simulator binds only 127.0.0.0/8 and ::1.")
                }
                var configuration = HostSimulator.Configuration(scenario: chosen, certificatesDirectory: paths.certificatesDirectory(fixtures: fixtures))
                configuration.addresses = Self.addresses(from: first)
                configuration.port = port ?? settings[.simulatorPort] ?? 0
                configuration.eventLoopThreads = threads
                let front = try upstream.map { try ReverseProxy(url: $0, caFile: options.upstreamCaFile) }
                configuration.upstream = front
                guard (0...65_535).contains(configuration.port) else { throw ValidationError("host-simulator.port must be from 0 to 65535.") }
                let simulator = try HostSimulator(configuration: configuration, journal: try Journal(path: journal))
                let caFile = (simulator.caFile as NSString).standardizingPath
                logger.privacy.notice("Simulator playing \(public: chosen.name)", metadata: ["tags": "simulator"])
                // The signals are heard before the hosts are announced: an interrupt sent as soon as
                // they are printed is never lost between ignoring it and watching for it.
                let signals = Self.interrupts()
                let serving = Task {
                    try await simulator.run { listeners in
                        var lines = [
                            "scenario: \(chosen.name) (\(chosen.summary))",
                            several
                                ? "expected client outcome: none (several scenarios at once; vigil simulate judges each alone)"
                                : "expected client outcome: \(chosen.outcome.rawValue)",
                        ]
                        for listener in listeners {
                            lines.append(
                                "\(listener.scheme == "https" ? "host \(listener.host)" : "plain  ")  \(listener.url)"
                                    + (listener.certificate.map { "  certificate: \($0)" } ?? ""))
                            if let genuine = listener.forwardsTo {
                                lines.append("        a man in the middle: forwards every request to the genuine host at \(genuine)")
                            }
                        }
                        if let upstream = front {
                            lines.append("in front of \(upstream.url): what the scenario does not answer is forwarded there")
                        }
                        lines.append("trust this CA file: \(caFile)")
                        let http1 = listeners.first { $0.host == 1 && $0.scheme == "http" }?.url
                        lines += PlayByHand.lines(
                            chosen, http1: http1, httpsPort: listeners.first { $0.host == 1 && $0.scheme == "https" }?.port,
                            proxies: simulator.proxyURLs.sorted { $0.key < $1.key }.map(\.value),
                            passwords: simulator.responder.proxyPasswords, certificates: (caFile as NSString).deletingLastPathComponent,
                            resolved: simulator.responder.resolved)
                        if front == nil {
                            lines.append("users: " + chosen.effectiveUsers.sorted { $0.key < $1.key }.map { "\($0.key) / \($0.value)" }.joined(separator: ", "))
                        }
                        lines.append("journal: \(journal ?? "(memory only)")")
                        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
                    }
                }
                // Run until a signal arrives or the server stops by itself (a port in use, say).
                let ended: (failure: (any Error)?, signal: Int32?) = await withTaskGroup(of: ((any Error)?, Int32?).self) { group in
                    group.addTask {
                        if case .failure(let error) = await serving.result { return (error, nil) }
                        return (nil, nil)
                    }
                    group.addTask {
                        for await number in signals { return (nil, number) }
                        return (nil, nil)
                    }
                    let first = await group.next() ?? (nil, nil)
                    serving.cancel()
                    group.cancelAll()
                    return first
                }
                if let number = ended.signal {
                    // Interrupted: the hosts closed; 128 + the signal's number, as a shell reports it.
                    FileHandle.standardError.write(
                        Data("vigil simulator: \(Interruption.describe(number)); the simulated hosts stopped\n".utf8))
                    throw ExitCode(128 + number)
                }
                if let failure = ended.failure, !(failure is CancellationError) {
                    throw CommandFailure("the simulator stopped: \(failure)")
                }
            } catch let error as SimulatorError {
                throw CommandFailure(error)
            }
        }

        /// 127.0.0.1 gives 127.0.0.1, .2, .3; ::1 gives ::1 alone.
        static func addresses(from first: String) -> [String] {
            let parts = first.split(separator: ".")
            guard parts.count == 4, let last = Int(parts[3]), last <= 253 else { return [first] }
            let prefix = parts.dropLast().joined(separator: ".")
            return (0..<3).map { "\(prefix).\(last + $0)" }
        }

        /// SIGINT and SIGTERM as an async stream (watched as every command watches them:
        /// ``Interruption/watch(_:handler:)``, which leaves a signal ignored at start ignored).
        static func interrupts() -> AsyncStream<Int32> {
            let (stream, continuation) = AsyncStream<Int32>.makeStream()
            Interruption.watch([SIGINT, SIGTERM]) { continuation.yield($0) }
            return stream
        }
    }
}
