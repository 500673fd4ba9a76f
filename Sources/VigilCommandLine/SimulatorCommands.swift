package import ArgumentParser
import FoundationEssentials
import Glibc
import VigilPaths

/// The simulator's commands as both executables declare them: `vigil` (which parses them, shows
/// their help and completions, then runs `vigil-simulator` with the same arguments) and
/// `vigil-simulator` (which plays them). Their options are declared once, here.
package enum SimulatorCommands {
    package static func simulator(subcommands: [any ParsableCommand.Type]) -> CommandConfiguration {
        CommandConfiguration(
            commandName: "simulator",
            abstract: "A real HTTPS server on loopback that impersonates a cloud server and plays security scenarios.",
            subcommands: subcommands
        )
    }

    package static let scenarios = CommandConfiguration(
        commandName: "scenarios", abstract: "List the scenarios, one line each.",
        usage: CommandHelp.usage("simulator scenarios"),
        discussion: CommandHelp.discussion("simulator scenarios"))

    package static let serve = CommandConfiguration(
        commandName: "serve", abstract: "Serve a scenario on 127.0.0.1, 127.0.0.2 and 127.0.0.3 until interrupted.",
        usage: CommandHelp.usage("simulator serve"),
        discussion: CommandHelp.discussion("simulator serve"))

    package static let simulate = CommandConfiguration(
        commandName: "simulate",
        abstract: "Hold Vigil's client to every simulator scenario: the CI security suite.",
        usage: CommandHelp.usage("simulate"),
        discussion: CommandHelp.discussion(
            "simulate",
            """
            Starts the simulator in this process on free loopback ports and, for each scenario, drives the \
            real account setup (the code of `vigil account add`) as the fixture's scripted user: declining, \
            approving a certificate by fingerprint, approving a redirect, or logging in through a browser \
            stand-in. Each scenario gets private data, config and state directories; the run gets a private \
            Secret Service (its own D-Bus session and an unlocked GNOME Keyring), removed at the end.

            The outcome is checked exactly, and four invariants on every scenario: (1) no credential at a host \
            whose certificate was neither trusted nor approved, or over plain HTTP (the simulator's journal); \
            (2) no planted secret in a log line (trace level, HTTP logging on) or (3) in a file; (4) the keyring \
            holds exactly the expected items, and none after the account is removed. Scenarios listed in \
            known-gaps.json beside the fixtures may miss their outcome (never an invariant); one that passes \
            fails the suite until it leaves the list.

            Exit codes: 0 every scenario passed or is a known gap (with --client: not exercised or not \
            applicable); 1 a scenario failed, or the --client leaked (whether or not it logged in); 2 the suite \
            could not run (no D-Bus or keyring daemon, a malformed fixture or known-gaps.json, no \
            vigil-simulator beside vigil, no network namespace for --client) or the --client could not be \
            scored (no login and no violation); 64 usage.
            """)
    )
}

/// Where the fixtures and certificates are.
package struct SimulatorPaths: ParsableArguments {
    @Option(help: "Directory of scenario fixtures (default: host-simulator.fixtures, else the fixtures installed with Vigil).", completion: .directory)
    package var fixtures: String?

    @Option(help: "Directory of the test PKI (default: testcerts beside the fixtures directory, else the one installed with Vigil).", completion: .directory)
    package var certificates: String?

    package init() {}

    package func fixturesDirectory(_ settingsValue: String?) -> String {
        Self.fixturesDirectory(given: fixtures, setting: settingsValue)
    }

    /// The fixtures directory: the one given (`--fixtures`), else `host-simulator.fixtures`, else
    /// the fixtures installed with Vigil.
    package static func fixturesDirectory(given: String?, setting: String?) -> String {
        given ?? setting ?? DataLocations.fixtures
    }

    package func certificatesDirectory(fixtures: String) -> String {
        if let certificates { return certificates }
        let beside = PathName.join(PathName.directory(of: PathName.normalized(fixtures)), "testcerts")
        return FileManager.default.fileExists(atPath: PathName.join(beside, "ca-bundle.pem")) ? beside : DataLocations.testcerts
    }
}

/// `vigil simulator scenarios`.
package struct ScenariosOptions: ParsableArguments {
    @OptionGroup package var paths: SimulatorPaths
    @Flag(help: "Print JSON: an array of the fixtures.") package var json = false
    @Flag(help: "Print docs/scenarios.md.") package var markdown = false
    @OptionGroup(title: "Log options") package var logOptions: LogOptions

    package init() {}
}

/// `vigil simulator serve`.
package struct ServeOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "A scenario to play, by its name or the seeds' simulation name; repeat it to play several at once (default: host-simulator.active-simulations, else host-simulator.scenario, valid)."
        ), completion: Completions.scenarios) package var scenario: [String] = []
    @OptionGroup package var paths: SimulatorPaths
    @Option(help: "The first loopback address; the next two follow it (default: host-simulator.bind, 127.0.0.1).") package var bind: String?
    @Option(help: "Port of the HTTPS hosts (plain HTTP takes the next); 0 picks free ports (default: host-simulator.port).") package var port: Int?
    @Option(help: "Append a JSON line per request to this file (no header values, no bodies).", completion: Completions.file) package var journal: String?
    @Option(help: "Event-loop threads for all listeners (default: one per core).") package var threads: Int?
    @Option(
        help: ArgumentHelp(
            "Sit in front of this real server (https://host[:port][/path]) as a reverse proxy: what the scenario's faults do not answer is forwarded to it."
        )) package var upstream: String?
    @Option(help: "CAs that may sign the upstream server's certificate (default: the system's trust store).", completion: Completions.file)
    package var upstreamCaFile: String?
    @OptionGroup(title: "Log options") package var logOptions: LogOptions

    package init() {}

    package func validate() throws {
        if upstreamCaFile != nil, upstream == nil { throw ValidationError("--upstream-ca-file goes with --upstream.") }
        if let port, !(0...65_535).contains(port) { throw ValidationError("--port must be from 0 to 65535.") }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be from 1 to 256.") }
    }
}

/// `vigil simulate`.
package struct SimulateOptions: ParsableArguments {
    @Option(
        name: .customLong("scenario"), help: ArgumentHelp("Play only scenarios matching this glob (repeatable; default: all).", valueName: "scenario"),
        completion: Completions.scenarios)
    package var scenarios: [String] = []
    @OptionGroup package var paths: SimulatorPaths
    @Option(help: "Scenarios played at once (default: the number of cores).")
    package var jobs: Int?
    @Option(help: "Play the I-th of N deterministic parts of the sorted list (I/N), for N parallel CI jobs.")
    package var shard: String?
    @Flag(help: "List the selected scenarios and their expected outcomes; play nothing.")
    package var list = false
    @Flag(help: "Print the results as JSON instead of the table.")
    package var json = false
    @Option(help: "Write a JUnit XML report to this file (known gaps as skipped).", completion: Completions.file)
    package var junit: String?
    @Option(help: "Keep each scenario's directories (database, logs, settings) under this directory.", completion: .directory)
    package var keep: String?
    @Option(help: "Seconds to wait for each connection and answer.")
    package var timeout: Double = 10
    @Option(
        help: ArgumentHelp(
            "Hold another sync client to the scenarios: a built-in profile (curl, owncloudcmd, nextcloudcmd, rclone) or a command template.",
            discussion:
                "A command is split on spaces and run without a shell, with {url} {host} {port} {user} {password} {ca_file} {dir} {tmp} filled in. The verdict comes from what reached the simulated hosts, not from the client's word: two scores, safe and works (docs/ci.md). A client that does not log in to valid is still searched for leaks on every scenario: a violation is exit 1; with no violation and no login it is not scored (exit 2). Scenarios it cannot be given (an account set up before, pinned host names, a Vigil-only setting) are not applicable; a fault it never reaches is not exercised.",
            valueName: "profile|command"))
    package var client: String?
    @Option(
        help: ArgumentHelp("Hold the client a profile file describes (JSON) to the scenarios.", valueName: "file"), completion: .file(extensions: ["json"]))
    package var clientProfile: String?
    @Flag(
        help: ArgumentHelp(
            "Run the client in this machine's own network instead of a network namespace of its own (a weaker judgement, said in the report).",
            discussion:
                "By default an external client's run (the simulated hosts and the client) is executed in a new network namespace with only loopback: the scenarios' host names resolve there (on port 443), every other name, address and port reaches a recorder whose contacts are reported (a secret there is a violation), and nothing the client sends leaves the machine; where one cannot be made (no user namespaces, no nft), vigil simulate says so and exits 2."
        ))
    package var noNetworkNamespace = false
    @OptionGroup(title: "Log options") package var logOptions: LogOptions

    package init() {}

    /// What needs no fixture; the shard's form (I/N) is checked by `vigil-simulator`, which plays it.
    package func validate() throws {
        if let jobs, !(1...64).contains(jobs) { throw ValidationError("--jobs must be from 1 to 64.") }
        guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be between 0 and 600 seconds.") }
        if client != nil && clientProfile != nil { throw ValidationError("--client and --client-profile name the client twice; give one.") }
        if noNetworkNamespace && client == nil && clientProfile == nil {
            throw ValidationError("--no-network-namespace goes with --client or --client-profile (Vigil's own client runs in this process).")
        }
    }
}
