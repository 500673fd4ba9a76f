import ArgumentParser
import VigilCommandLine

// `vigil simulator` and `vigil simulate`: parsed, validated and documented here (help, man pages,
// completions), played by `vigil-simulator` (``SimulatorExecutable``), which carries the server.
extension Vigil {
    struct Simulator: ParsableCommand {
        static let configuration = SimulatorCommands.simulator(subcommands: [Serve.self, Scenarios.self])
    }

    struct Simulate: ParsableCommand {
        static let configuration = SimulatorCommands.simulate
        @OptionGroup var options: SimulateOptions
        func run() throws { try SimulatorExecutable.run() }
    }
}

extension Vigil.Simulator {
    struct Scenarios: ParsableCommand {
        static let configuration = SimulatorCommands.scenarios
        @OptionGroup var options: ScenariosOptions
        func run() throws { try SimulatorExecutable.run() }
    }

    struct Serve: ParsableCommand {
        static let configuration = SimulatorCommands.serve
        @OptionGroup var options: ServeOptions
        func run() throws { try SimulatorExecutable.run() }
    }
}
