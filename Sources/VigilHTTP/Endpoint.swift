import FoundationEssentials
import Glibc
public import VigilCertificates
import VigilText

/// An `https://host[:port]` endpoint. Only https is accepted.
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    /// The host name or IP literal (IPv6 without brackets).
    public var host: String
    /// The TCP port.
    public var port: Int

    /// An endpoint for `host` on `port` (443 by default); the values are not checked.
    public init(host: String, port: Int = 443) {
        self.host = host
        self.port = port
    }

    /// Parses `https://HOST[:PORT][/...]`; IPv6 literals go in brackets.
    public init(url text: String) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw HTTPError(.invalidURL, "\"\(text)\" is not a URL; expected https://HOST[:PORT].")
        }
        guard scheme == "https" else {
            throw HTTPError(.invalidURL, "\"\(text)\" is not an https URL; only https://HOST[:PORT] can be inspected.")
        }
        guard var host = components.host, !host.isEmpty else {
            throw HTTPError(.invalidURL, "\"\(text)\" has no host.")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = components.port ?? 443
        guard (1...65535).contains(port) else { throw HTTPError(.invalidURL, "Port \(port) is out of range.") }
        self.init(host: host, port: port)
    }

    /// The name the certificate must match.
    public var peerName: PeerName { PeerName(host: host) }

    /// The URL form, with IPv6 literals bracketed.
    public var description: String { origin(scheme: "https") }

    /// The origin as `scheme` names it (a plain-HTTP fetch from the same host and port is
    /// `http://`), IPv6 literals bracketed, the scheme's default port left out.
    func origin(scheme: String) -> String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return port == (scheme == "http" ? 80 : 443) ? "\(scheme)://\(shown)" : "\(scheme)://\(shown):\(port)"
    }
}

extension Endpoint {
    /// The same https origin: the same host in any of its spellings (``VigilText/HostName``: case,
    /// a trailing dot, IPv6 forms) and the same port.
    public func isSameOrigin(as other: Endpoint) -> Bool {
        port == other.port && HostName.same(host, other.host)
    }

    /// The origin as one key (canonical host, port): what approvals and reviewed leaves are kept under.
    public var originKey: String {
        let host = HostName.canonical(host)
        return (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }
}
