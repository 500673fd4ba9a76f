import ArgumentParser
import VigilHTTP

/// `--resolve HOST:PORT:ADDRESS` (curl's semantics), for every command that connects.
struct ResolveOptions: ParsableArguments {
    @Option(help: "Connect to HOST:PORT at ADDRESS instead of resolving it (curl's HOST:PORT:ADDRESS; repeatable).")
    var resolve: [String] = []

    func validate() throws {
        for entry in resolve {
            do { _ = try HostResolution(parsing: entry) } catch let error as HTTPError { throw ValidationError(error.reason) }
        }
    }

    /// The entries, parsed (validated already).
    var pins: [HostResolution] { resolve.compactMap { try? HostResolution(parsing: $0) } }
}
