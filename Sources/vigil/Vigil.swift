import ArgumentParser

@main
struct Vigil: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vigil",
        abstract: "Security and certificate inspection for file-sync cloud clients.",
        version: "0.1.0",
        subcommands: [Inspect.self, Conformance.self]
    )
}
