import ArgumentParser
import FoundationEssentials
import Glibc
import VigilAccounts
import VigilCommandLine
import VigilSecrets

@main
struct Vigil: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vigil",
        abstract: "Security and certificate inspection for file-sync cloud clients.",
        version: UserAgent.appVersion,
        subcommands: [
            Inspect.self, AccountCommand.self, Certificates.self, ServerCommand.self, ProxyCommand.self, Config.self, Log.self, Simulator.self, Simulate.self,
            Conformance.self,
        ]
    )

    @MainActor static func main() async {
        // A peer that closes a socket (libcurl runs with CURLOPT_NOSIGNAL) or a reader that
        // closes our stdout must give an error, not kill the process.
        signal(SIGPIPE, SIG_IGN)
        // Passwords and tokens pass through this process: no core dump, no ptrace by others.
        ProcessHygiene.apply()
        await CommandLauncher.run(Self.self)
    }
}
