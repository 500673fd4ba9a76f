import ArgumentParser
import Foundation
import VigilAccounts
import VigilCommandLine
import VigilSecrets
import VigilSuite

/// `vigil-simulator`: the host simulator and the security suite, in an executable of their own so
/// that `vigil`, the client, carries none of the server's code (Hummingbird, SwiftNIO, BoringSSL).
/// `vigil simulator ...` and `vigil simulate ...` parse their arguments, then run this program
/// with the same arguments; it is installed beside `vigil`.
@main
struct VigilSimulatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        // Its messages name the command the user typed: vigil simulate, vigil simulator serve.
        commandName: "vigil",
        abstract: "vigil-simulator: the host simulator and the security suite behind `vigil simulator` and `vigil simulate`; run those.",
        usage: "vigil-simulator simulator|simulate ... (as vigil runs it; run vigil simulator or vigil simulate instead)",
        version: UserAgent.appVersion,
        subcommands: [Simulator.self, Simulate.self]
    )

    @MainActor static func main() async {
        // The first program of a client's cell (vigil simulate --client): it installs the cell's
        // filter and becomes the client; nothing else of this program runs.
        if CommandLine.arguments.count > 1, CommandLine.arguments[1] == CellExec.flag { CellExec.run(Array(CommandLine.arguments.dropFirst(2))) }
        if CommandLine.arguments.count > 1, CommandLine.arguments[1] == CellExec.enterFlag { CellExec.enter(Array(CommandLine.arguments.dropFirst(2))) }
        signal(SIGPIPE, SIG_IGN)
        // The suite's client handles passwords and tokens in this process, as vigil does.
        ProcessHygiene.apply()
        await CommandLauncher.run(Self.self, interruptible: false)
    }
}
