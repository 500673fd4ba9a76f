import FoundationEssentials
import Synchronization
import VigilText

/// Which proxy a connection goes through (`connection.proxy`, `connection.proxy-autoconfig-url`),
/// and the credentials kept for proxies. ``route(for:)`` decides, the same way for the probe, the
/// HTTP client and `vigil proxy which`:
/// 1. `connection.proxy` a URL: that proxy; `none`: direct.
/// 2. `system` (the default): the PAC file of `connection.proxy-autoconfig-url` when set; else the
///    `*_proxy` environment variables as curl reads them (minus `no_proxy`); else the desktop's
///    (GNOME's `org.gnome.system.proxy`: ``DesktopProxy``); else direct.
///
/// No WPAD discovery: a PAC file that any host of the network can answer is an attack.
public struct ProxyConfiguration: Sendable {
    /// `connection.proxy`.
    public enum Mode: Sendable, Hashable {
        /// The PAC setting, then the environment.
        case system
        /// Direct, whatever the environment says.
        case none
        /// This proxy (`http://`, `https://`, `socks5h://`).
        case url(String)
    }

    /// `connection.proxy`.
    public var mode: Mode = .system
    /// `connection.proxy-autoconfig-url`: a PAC file (`http://`, `https://`, `file://`).
    public var autoconfigURL: String?
    /// The credential kept for a proxy (`vigil proxy login`), by its scheme, host and port; asked
    /// on the transfer's own thread, only for the proxy a connection goes through.
    public var credentials: (@Sendable (ProxyIdentity) throws -> ProxyCredential?)?
    /// The environment the `*_proxy` variables are read from.
    public var environment: [String: String] = ProcessInfo.processInfo.environment
    /// The proxies that asked who we are, shared by this configuration's copies.
    let challenges = ProxyChallengeMemory()
    /// The way each origin was last reached, shared by this configuration's copies.
    let paths = ProxyPathMemory()

    /// The way the last connection to `url`'s origin (scheme, host, port) went, through this
    /// configuration or a copy of it; nil when none was made.
    public func taken(toward url: String) -> ProxyUse? {
        guard let parts = URLParts(url) else { return nil }
        return paths.taken(scheme: parts.scheme, host: parts.host, port: parts.port)
    }

    /// `system`, no PAC file, no kept credentials, this process's environment.
    public init() {}

    /// `transfer` through each proxy of the route for `scheme://host:port` in turn (the next only
    /// when nothing reached the previous one: a PAC file's `PROXY a; PROXY b; DIRECT`), each
    /// answering its 407 with the credential kept for it; the value, and which way it went.
    func throughRoute<T>(scheme: String, host: String, port: Int, _ transfer: (ProxyChoice, ProxyCredential?) throws -> T) throws -> (T, ProxyUse) {
        let route = try route(scheme: scheme, host: host, port: port)
        var notReached: [String] = []
        for (index, choice) in route.candidates.enumerated() {
            var use = ProxyUse(proxy: choice.identity?.description, source: route.source, autoconfigAnswer: route.autoconfigAnswer)
            use.notReached = notReached
            do {
                let value = try answeringChallenge(choice) { try transfer(choice, $0) }
                paths.record(use, scheme: scheme, host: host, port: port)
                return (value, use)
            } catch let error as HTTPError where index < route.candidates.count - 1 && choice.identity != nil && error.isProxyUnreachable {
                notReached.append(choice.shown)
                continue
            } catch {
                // The way this attempt went, failed or not: `via:` names the last one tried.
                paths.record(use, scheme: scheme, host: host, port: port)
                throw error
            }
        }
        throw HTTPError(.proxy, "No proxy to try for \(host).")
    }

    /// One transfer through `choice`, first with no kept credential (nothing is read from the
    /// keyring for a proxy that does not ask); when the proxy answers 407 and a credential is
    /// kept for it, once more with it (the 407 means nothing went past the proxy).
    /// A SOCKS proxy never answers 407 (it picks a login method in its handshake): its kept
    /// credential is offered from the start, and used only when it picks user and password.
    func answeringChallenge<T>(_ choice: ProxyChoice, _ transfer: (ProxyCredential?) throws -> T) throws -> T {
        if choice.identity?.scheme.hasPrefix("socks") == true, choice.userInformation == nil {
            return try transfer(try keptCredential(for: choice))
        }
        // This very proxy asked before, for this configuration (its CONNECT answered 407): its kept
        // credential answers at once, without a first refused connection each time.
        if let identity = choice.identity, choice.userInformation == nil, let schemes = challenges.asked(by: identity),
            var kept = try keptCredential(for: choice)
        {
            kept.challengedSchemes = schemes
            return try transfer(kept)
        }
        do {
            return try transfer(nil)
        } catch let error as HTTPError
            where error.code == .proxyAuthenticationRequired && choice.userInformation == nil && error.proxyChallenge?.tunnelled == true
        {
            let found: ProxyCredential?
            do {
                found = try keptCredential(for: choice)
            } catch let unread as HTTPError {
                var answer = HTTPError(.proxy, error.reason + " " + unread.reason, curlCode: error.curlCode)
                answer.proxyChallenge = error.proxyChallenge
                throw answer
            }
            guard var kept = found else { throw error }
            kept.challengedSchemes = error.proxyChallenge?.schemes ?? []
            if let identity = choice.identity { challenges.remember(identity, schemes: kept.challengedSchemes) }
            return try transfer(kept)
        }
    }

    /// The credential kept for `choice`'s proxy; nil for a direct connection or none kept.
    func keptCredential(for choice: ProxyChoice) throws -> ProxyCredential? {
        guard let identity = choice.identity, let credentials else { return nil }
        do {
            return try credentials(identity)
        } catch {
            throw HTTPError(.proxy, "A password kept for the proxy \(identity) cannot be read from the keyring (\(error)).")
        }
    }

    /// ``route(for:)`` on a thread of its own (a PAC file may be fetched and run).
    public func choosing(for url: String) async throws -> ProxyRoute {
        let configuration = self
        return try await TransferCancellation.onThread(named: "vigil-proxy") { _ in try configuration.route(for: url) }
    }

    /// Whether `url` is an absolute http(s) URL a route can be chosen for.
    public func routeCheck(_ url: String) throws {
        guard URLParts(url) != nil else { throw HTTPError(.invalidURL, "The URL is not an absolute http(s) URL.") }
    }

    /// The proxies to try for `url`, in order, and where the choice came from.
    public func route(for url: String) throws -> ProxyRoute {
        guard let target = URLParts(url) else { throw HTTPError(.invalidURL, "The request URL is not an absolute http(s) URL.") }
        return try route(scheme: target.scheme, host: target.host, port: target.port)
    }

    func route(scheme: String, host: String, port: Int) throws -> ProxyRoute {
        let secure = scheme == "https"
        switch mode {
        case .none:
            return ProxyRoute(candidates: [.direct], source: "connection.proxy none")
        case .url(let text):
            return ProxyRoute(candidates: [try ProxyChoice.parse(text, named: "connection.proxy", environment: environment)], source: "connection.proxy")
        case .system:
            if let autoconfigURL {
                let answer = try PACFile.shared.answer(for: autoconfigURL, scheme: scheme, host: host, port: port, environment: environment)
                let candidates = try PACFile.candidates(answer, file: autoconfigURL, environment: environment)
                return ProxyRoute(candidates: candidates, source: "connection.proxy-autoconfig-url \(autoconfigURL)", autoconfigAnswer: answer)
            }
            let names = secure ? ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] : ["http_proxy", "all_proxy", "ALL_PROXY"]
            let chosen = try ProxyChoice.choose(host: host, names: names, environment: environment)
            guard chosen.url != nil else {
                if names.contains(where: { environment[$0]?.isEmpty == false }) { return ProxyRoute(candidates: [.direct], source: "no_proxy") }
                // No variable: the desktop's setting, where there is one.
                if let desktop = try DesktopProxy.read(environment: environment),
                    let route = try desktop.route(scheme: scheme, host: host, port: port, environment: environment)
                {
                    return route
                }
                return ProxyRoute(candidates: [.direct], source: "no proxy configured")
            }
            let name = names.first { environment[$0]?.isEmpty == false } ?? names[0]
            return ProxyRoute(candidates: [chosen], source: name)
        }
    }
}

/// A proxy as its credential is bound to it: scheme, host and port.
public struct ProxyIdentity: Sendable, Hashable, CustomStringConvertible {
    /// `http`, `https`, `socks5h`, `socks4a`.
    public var scheme: String
    /// The proxy's host name or address (IPv6 without brackets), lower-cased.
    public var host: String
    /// The proxy's port.
    public var port: Int

    /// The identity of the proxy at `scheme://host:port`.
    public init(scheme: String, host: String, port: Int) {
        self.scheme = scheme.lowercased()
        self.host = host.lowercased().trimming(charactersIn: "[]")
        self.port = port
    }

    /// The identity of a proxy URL (`http://proxy:3128`; the scheme's default port when none is
    /// given: 1080 for SOCKS, curl's 1080 for http too), nil when it is not one: its host must be
    /// plain (``HostName/isPlain``: no percent-encoded `@`, `/` or `#` that would show one host
    /// while curl connects to another) and nothing may follow it but a path of `/`.
    public init?(url text: String) {
        let withScheme = text.contains("://") ? text : "http://" + text
        guard let parts = URLComponents(string: withScheme), let scheme = parts.scheme?.lowercased(), let host = parts.percentEncodedHost, !host.isEmpty,
            HostName.isPlain(host), ["http", "https", "socks5h", "socks4a"].contains(scheme), ["", "/"].contains(parts.percentEncodedPath),
            parts.percentEncodedQuery == nil, parts.percentEncodedFragment == nil
        else { return nil }
        self.init(scheme: scheme, host: host, port: parts.port ?? (scheme == "https" ? 443 : 1080))
    }

    /// `scheme://host:port`, IPv6 in brackets: the key a credential is kept under.
    public var description: String { "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)" }

    /// Whether this proxy reads what is sent to it in clear (all but an https proxy).
    public var isPlain: Bool { scheme != "https" }
}

/// A proxy's user and password, and whether the user agreed to send the password where the
/// network can read it (Basic over a plain-http proxy, SOCKS5's user and password).
public struct ProxyCredential: Sendable, CustomStringConvertible, CustomReflectable {
    /// The user name.
    public var user: String
    /// The password: never printed, mirrored or logged.
    public var password: String
    /// The user agreed, at `vigil proxy login --allow-clear-text`, to a scheme that shows the password.
    public var allowsClearText: Bool
    /// The schemes the proxy offered in the 407 this credential answers (empty: none seen yet).
    var challengedSchemes: [String] = []

    /// A credential for `user`.
    public init(user: String, password: String, allowsClearText: Bool) {
        self.user = user
        self.password = password
        self.allowsClearText = allowsClearText
    }

    /// The user only.
    public var description: String { "proxy credential of \(user)" }
    /// The user only.
    public var customMirror: Mirror { Mirror(self, children: ["user": user]) }
}

/// The proxies to try for one URL, in order (``ProxyChoice/direct`` for a direct connection), and
/// where the choice came from: what `vigil proxy which` prints and the `via` line shows.
public struct ProxyRoute: Sendable {
    /// The proxies to try, in order; a PAC file's `PROXY a; SOCKS5 b; DIRECT`.
    public var candidates: [ProxyChoice]
    /// Where the choice came from: `https_proxy`, `connection.proxy`, `connection.proxy-autoconfig-url URL`, ...
    public var source: String
    /// The PAC file's answer as it gave it, when one decided.
    public var autoconfigAnswer: String?

    /// A route over `candidates`, chosen by `source`.
    public init(candidates: [ProxyChoice], source: String, autoconfigAnswer: String? = nil) {
        self.candidates = candidates
        self.source = source
        self.autoconfigAnswer = autoconfigAnswer
    }

    /// The candidates as text (`http://proxy:3128`, `direct`), without user information.
    public var shown: [String] { candidates.map(\.shown) }
}

/// Which way one connection went: the proxy used (nil: direct) and why.
public struct ProxyUse: Sendable, Hashable, Codable {
    /// The proxy the connection went through, without user information; nil when direct.
    public var proxy: String?
    /// Where the choice came from (``ProxyRoute/source``).
    public var source: String
    /// The PAC file's answer, when one decided.
    public var autoconfigAnswer: String?

    /// The proxies tried before, in the route's order, that could not be reached.
    public var notReached: [String] = []

    /// A connection through `proxy` (nil: direct), chosen by `source`.
    public init(proxy: String?, source: String, autoconfigAnswer: String? = nil) {
        self.proxy = proxy
        self.source = source
        self.autoconfigAnswer = autoconfigAnswer
    }

    /// `http://proxy:3128 (https_proxy)`, `direct (no proxy configured)`, or with what was
    /// passed over: `direct (PAC ...: "PROXY a:3128; DIRECT"; not reached: http://a:3128)`.
    public var description: String {
        let through = proxy ?? "direct"
        let passed = notReached.isEmpty ? "" : "; not reached: " + notReached.joined(separator: ", ")
        if let autoconfigAnswer { return "\(through) (\(source): \"\(autoconfigAnswer)\"\(passed))" }
        return "\(through) (\(source)\(passed))"
    }
}

/// The way each origin was last reached, for the reports that name the path taken (`via:`).
final class ProxyPathMemory: Sendable {
    private let taken = Mutex<[String: ProxyUse]>([:])

    func record(_ use: ProxyUse, scheme: String, host: String, port: Int) { taken.withLock { $0["\(scheme)://\(host):\(port)"] = use } }

    func taken(scheme: String, host: String, port: Int) -> ProxyUse? { taken.withLock { $0["\(scheme)://\(host):\(port)"] } }
}
