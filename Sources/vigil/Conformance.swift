import ArgumentParser
import FoundationEssentials
import Glibc
import VigilCertificates
import VigilCommandLine
import VigilText

extension Vigil {
    struct Conformance: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "conformance",
            abstract: "Conformance harnesses over Vigil's trust evaluator.",
            subcommands: [Limbo.self]
        )
    }
}

extension Vigil.Conformance {
    struct Limbo: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "limbo",
            abstract: "x509-limbo harness: reads the suite JSON on stdin, writes results JSON on stdout.",
            usage: CommandHelp.usage("conformance limbo"),
            discussion: CommandHelp.discussion("conformance limbo")
        )

        @OptionGroup(title: "Log options") var logOptions: LogOptions

        func run() throws {
            _ = try CommandContext.start(logOptions)
            let input = Data(StandardStream.readInput() ?? [])
            do {
                let output = try LimboHarness.run(suite: input)
                StandardStream.write(output + Data("\n".utf8), to: STDOUT_FILENO)
            } catch {
                StandardStream.writeError("vigil: cannot read the limbo suite: \(error)\n")
                throw ExitCode(ExitStatus.error)
            }
        }
    }
}
