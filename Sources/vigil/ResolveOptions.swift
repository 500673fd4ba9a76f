import ArgumentParser
import FoundationEssentials
import Glibc
import VigilHTTP
import VigilLogging

/// `--resolve HOST:PORT:ADDRESS` (curl's semantics) and `--proxy-ca-file`, for every command that
/// connects to a server by its name.
struct ResolveOptions: ParsableArguments {
    @Option(help: "Connect to HOST:PORT at ADDRESS instead of resolving it (curl's HOST:PORT:ADDRESS; repeatable).")
    var resolve: [String] = []

    @OptionGroup var proxy: ProxyOptions

    func validate() throws {
        for entry in resolve {
            do { _ = try HostResolution(parsing: entry) } catch let error as HTTPError { throw ValidationError(error.reason) }
        }
    }

    /// The entries, parsed (validated already).
    var pins: [HostResolution] { resolve.compactMap { try? HostResolution(parsing: $0) } }
}

/// `--proxy-ca-file`, for every command that connects.
struct ProxyOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Trust the https proxy (https_proxy) whose certificate chains to a CA in this PEM file, as VIGIL_PROXY_CA_FILE does.",
            discussion: "Without it an https proxy must chain to the system store; an untrusted proxy receives nothing, not even CONNECT or its password.",
            valueName: "pem-file"), completion: .file())
    var proxyCAFile: String?

    func validate() throws {
        if let proxyCAFile {
            guard FileManager.default.isReadableFile(atPath: proxyCAFile) else {
                throw ValidationError("--proxy-ca-file: cannot read \(SafeText.escaped(proxyCAFile)).")
            }
            // The proxy is the process's (https_proxy), so is the CA that verifies it.
            setenv("VIGIL_PROXY_CA_FILE", URL(fileURLWithPath: proxyCAFile).standardizedFileURL.path, 1)
        }
    }
}
