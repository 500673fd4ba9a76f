import CVigilSystem
import FoundationEssentials
import Glibc
import Synchronization
import VigilCertificates
import VigilLogging
import VigilText

/// A proxy auto-config file (`connection.proxy-autoconfig-url`), loaded once per process and
/// evaluated for each URL by Debian's `pactester` (libpacparser1: pacparser, its own JavaScript
/// engine and the standard helpers `shExpMatch`, `isInNet`, `dnsDomainIs`, `dnsResolve`,
/// `myIpAddress`...), in a process of its own, confined (``PACSandbox``: bubblewrap's
/// namespaces, no capability, NO_NEW_PRIVS, no file of the user's, no network): an empty
/// environment, no descriptor of Vigil's, 256 MiB of address space, 2 s of CPU, killed after 5 s.
/// A script that loops, eats memory or crashes the engine stops there, never in Vigil, and
/// reaches nothing of the user's.
///
/// What the script is told: `FindProxyForURL("scheme://host:port/", host)`: never the path or the
/// query (as browsers do for https since 2016), which may carry a token.
///
/// A file that cannot be loaded, or that fails to run or answers nothing usable, is an error
/// (``HTTPError/Code/proxy``), never a silent direct connection.
final class PACFile: Sendable {
    /// The one cache of this process: a file is fetched once, whatever asks for it.
    static let shared = PACFile()

    private let scripts = Mutex<[String: Result<String, HTTPError>]>([:])

    /// The evaluator (`VIGIL_PACTESTER` for tests of a broken one).
    static let evaluator = ProcessInfo.processInfo.environment["VIGIL_PACTESTER"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin/pactester"
    /// The largest PAC file read.
    static let maximumSize = 1 << 20

    /// The script's answer for `scheme://host:port`, as it gave it (`PROXY a:3128; DIRECT`).
    func answer(for file: String, scheme: String, host: String, port: Int, environment: [String: String]) throws -> String {
        let script = try self.script(file)
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let url = "\(scheme)://\(shownHost)\(port == (scheme == "https" ? 443 : 80) ? "" : ":\(port)")/"
        return try Self.evaluate(script, url: url, host: host, file: file)
    }

    /// The script's text: read or fetched once (direct, never through a proxy; https verified by
    /// the system trust store like any server).
    func script(_ file: String) throws -> String {
        if let known = scripts.withLock({ $0[file] }) { return try known.get() }
        let loaded: Result<String, HTTPError> = Result { () throws(HTTPError) in try Self.load(file) }
        scripts.withLock { $0[file] = loaded }
        return try loaded.get()
    }

    static func load(_ file: String) throws(HTTPError) -> String {
        let shown = SafeText.escaped(file)
        func failed(_ why: String) -> HTTPError {
            HTTPError(
                .proxy,
                "The proxy auto-config file \(shown) (connection.proxy-autoconfig-url) \(why). Nothing was sent; Vigil does not fall back to a direct connection."
            )
        }
        let bytes: [UInt8]
        if file.lowercased().hasPrefix("file://") {
            // One open, then its own status and a bounded read: a FIFO or a device never blocks
            // or streams (O_NONBLOCK), and nothing changes between the check and the read.
            guard let url = URL(string: file), url.isFileURL else { throw failed("is not a file:// URL of a local file") }
            let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else { throw failed("cannot be read (\(String(cString: strerror(errno))))") }
            defer { close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw failed("is not a regular file") }
            var read: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while read.count <= maximumSize {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count >= 0 else { throw failed("cannot be read (\(String(cString: strerror(errno))))") }
                if count == 0 { break }
                read += chunk.prefix(count)
            }
            bytes = read
        } else {
            var configuration = HTTPClient.Configuration()
            configuration.proxy.mode = .none
            configuration.allowPlainHTTP = file.lowercased().hasPrefix("http://")
            configuration.maximumBodySize = maximumSize
            configuration.timeout = .seconds(10)
            let policy: any TLSTrustPolicy
            do {
                policy = EvaluatorTrustPolicy(evaluator: try TrustEvaluator(), revocation: RevocationChecker(policy: .off))
            } catch {
                throw failed("cannot be verified: the system trust store cannot be loaded")
            }
            let response: HTTPResponse
            do {
                response = try HTTPClient(policy: policy, configuration: configuration).blockingSend(HTTPRequest(url: file))
            } catch let error as HTTPError {
                throw failed("cannot be loaded: \(error.reason) [HTTPError \(error.code)]")
            } catch {
                throw failed("cannot be loaded: \(error)")
            }
            guard response.status == 200 else { throw failed("cannot be loaded: the server answered HTTP \(response.status)") }
            bytes = response.body
        }
        guard bytes.count <= maximumSize else { throw failed("is larger than \(maximumSize) bytes") }
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else { throw failed("is not text") }
        return text
    }

    /// Runs `FindProxyForURL(url, host)` of `script` in `evaluator` (`pactester`), confined
    /// (``PACSandbox``): never unconfined.
    static func evaluate(_ script: String, url: String, host: String, file: String, evaluator: String = PACFile.evaluator) throws -> String {
        let shown = SafeText.escaped(file)
        guard FileManager.default.isExecutableFile(atPath: evaluator) else {
            throw HTTPError(
                .proxy,
                "The proxy auto-config file \(shown) cannot be evaluated: \(evaluator) is missing (install Debian's libpacparser1). Nothing was sent.")
        }
        // The names the script may ask for, answered by Vigil; myIpAddress() as browsers compute it.
        let bare = host.trimming(charactersIn: "[]")
        let addresses = PACSandbox.resolvesNames(script) ? PACSandbox.addresses(of: bare) : []
        let me = (addresses.first ?? (ProxyChoice.isAddress(bare) ? bare : nil)).flatMap(PACSandbox.localAddress(toward:))
        let etc = try PACSandbox.makeEtc(answers: addresses.map { ($0, bare) })
        defer { PACSandbox.removeEtc(etc) }
        guard let confined = PACSandbox.arguments([evaluator, "-p", "-", "-u", url, "-h", host] + (me.map { ["-c", $0] } ?? []), etc: etc) else {
            throw HTTPError(
                .proxy,
                "The proxy auto-config file \(shown) is not run: Debian's bubblewrap (bwrap), which confines its evaluator, is missing (install bubblewrap). Nothing was sent."
            )
        }
        let outcome = LimitedProcess.run(confined, input: Array(script.utf8), outputLimit: 4096, timeoutMilliseconds: 5000)
        let text: String
        let exit: Int32
        switch outcome {
        case .timedOut:
            throw HTTPError(.proxy, "The proxy auto-config file \(shown) did not answer within 5 seconds; it was stopped. Nothing was sent.")
        case .notStarted(let errno):
            throw HTTPError(.proxy, "The proxy auto-config file \(shown) cannot be evaluated (\(String(cString: strerror(errno)))). Nothing was sent.")
        case .exited(_, _, truncated: true):
            throw HTTPError(.proxy, "The proxy auto-config file \(shown) wrote more than 4096 bytes for \(url); its answer is not used. Nothing was sent.")
        case .exited(let status, let output, truncated: false):
            (exit, text) = (status, output)
        }
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        if exit == VIGIL_NO_OWN_KEYRING {
            throw HTTPError(
                .proxy,
                "The proxy auto-config file \(shown) is not run: its evaluator cannot be given a session keyring of its own (the kernel refused: a key quota?), and it never runs with the user's. Nothing was sent."
            )
        }
        if exit != 0, let cell = lines.first(where: { $0.hasPrefix("bwrap: ") }) {
            throw HTTPError(
                .proxy,
                "The proxy auto-config file \(shown) is not run: its evaluator's cell cannot be made here (\(SafeText.escaped(String(cell.prefix(200))))); it is never run unconfined. Nothing was sent."
            )
        }
        guard exit == 0, let answer = lines.last?.trimmingWhitespace(), !answer.isEmpty else {
            // The engine's own words (a syntax error's line), cut and escaped: the file is not ours.
            let why = lines.first { $0.contains("Error") || $0.contains("ERROR") } ?? lines.first ?? Self.ending(exit)
            throw HTTPError(
                .proxy,
                "The proxy auto-config file \(shown) failed to run for \(url) (\(SafeText.escaped(String(why.prefix(200))))). Nothing was sent; Vigil does not fall back to a direct connection."
            )
        }
        return String(answer.prefix(1000))
    }

    /// How the evaluator ended, in words: killed at its CPU limit (the kernel's SIGXCPU, then
    /// SIGKILL at the hard limit: a script that never ends), by another signal, or its status.
    static func ending(_ exit: Int32) -> String {
        switch exit {
        case 128 + SIGXCPU, 128 + SIGKILL:
            return "it was stopped after using its \(LimitedProcess.defaultCPUSeconds) s of CPU: a script that never ends?"
        case 129...159: return "it was killed by signal \(exit - 128)"
        default: return "its evaluator exited with status \(exit) and said nothing"
        }
    }

    /// A PAC answer's entries, in order: `PROXY h[:p]` and `HTTP h[:p]` (an http proxy, port 80
    /// by default), `HTTPS h[:p]` (443), `SOCKS5 h[:p]` (socks5h, 1080), `SOCKS`/`SOCKS4 h[:p]`
    /// (socks4a, 1080), `DIRECT`. An entry Vigil cannot use (another kind, user information, a
    /// path, a host with anything but host characters: `%`, `@`, `/`, `#` that a URL parser would
    /// read as syntax) makes the whole answer an error: skipping it could turn a proxy into a
    /// silent DIRECT. The proxy's URL is built from the checked host and port only, so what Vigil
    /// shows is what curl connects to.
    static func candidates(_ answer: String, file: String, environment: [String: String]) throws -> [ProxyChoice] {
        func unusable(_ why: String) -> HTTPError {
            HTTPError(
                .proxy,
                "The proxy auto-config file \(SafeText.escaped(file)) answered \"\(SafeText.escaped(String(answer.prefix(200))))\": \(why). Nothing was sent."
            )
        }
        var candidates: [ProxyChoice] = []
        for entry in answer.split(separator: ";") {
            let words = entry.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let kind = words.first?.uppercased() else { continue }
            if kind == "DIRECT", words.count == 1 {
                if !candidates.contains(.direct) { candidates.append(.direct) }
                continue
            }
            let known: (scheme: String, port: Int)? =
                switch kind {
                case "PROXY", "HTTP": ("http", 80)
                case "HTTPS": ("https", 443)
                case "SOCKS5": ("socks5h", 1080)
                case "SOCKS", "SOCKS4": ("socks4a", 1080)
                default: nil
                }
            let shown = SafeText.escaped(String(entry.prefix(100)))
            guard let known, words.count == 2 else { throw unusable("the entry \"\(shown)\" is not one Vigil can use") }
            guard let (host, port) = hostAndPort(String(words[1]), defaultPort: known.port) else {
                throw unusable(
                    "the entry \"\(shown)\" does not name a proxy by host characters and a port alone (no %, @, /, # or other URL syntax)")
            }
            let url = "\(known.scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
            guard let choice = try? ProxyChoice.parse(url, named: "the PAC answer", environment: environment) else {
                throw unusable("the entry \"\(shown)\" is not one Vigil can use")
            }
            if !candidates.contains(choice) { candidates.append(choice) }
        }
        guard !candidates.isEmpty else { throw unusable("it names no proxy and no DIRECT") }
        return candidates
    }

    /// `host[:port]` or `[v6][:port]` of a PAC entry, checked: a plain host (``HostName/isPlain``)
    /// and a port of digits from 1 to 65535; nil for anything else.
    static func hostAndPort(_ address: String, defaultPort: Int) -> (host: String, port: Int)? {
        let host: Substring, rest: Substring
        if address.hasPrefix("[") {
            guard let close = address.firstIndex(of: "]") else { return nil }
            host = address[address.index(after: address.startIndex)..<close]
            rest = address[address.index(after: close)...]
            guard host.contains(":"), HostName.isPlain(String(host)) else { return nil }
        } else if let colon = address.firstIndex(of: ":") {
            (host, rest) = (address[..<colon], address[colon...])
        } else {
            (host, rest) = (Substring(address), "")
        }
        guard HostName.isPlain(String(host)) else { return nil }
        if rest.isEmpty { return (String(host), defaultPort) }
        let digits = rest.dropFirst()
        guard rest.first == ":", !digits.isEmpty, digits.count <= 5, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let port = Int(digits),
            (1...65535).contains(port)
        else { return nil }
        return (String(host), port)
    }
}
