import ArgumentParser
import Foundation
import VigilCertificates
import VigilCommandLine

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
            abstract: "x509-limbo harness: reads the suite JSON on stdin, writes results JSON on stdout."
        )

        @OptionGroup var logOptions: LogOptions

        func run() throws {
            _ = CommandContext.start(logOptions)
            let input = FileHandle.standardInput.readDataToEndOfFile()
            do {
                let output = try LimboHarness.run(suite: input)
                FileHandle.standardOutput.write(output)
                FileHandle.standardOutput.write(Data("\n".utf8))
            } catch {
                FileHandle.standardError.write(Data("vigil: cannot read the limbo suite: \(error)\n".utf8))
                throw ExitCode(ExitStatus.error)
            }
        }
    }
}
