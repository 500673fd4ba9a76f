import FoundationEssentials
import Glibc
import VigilText

/// How a host is written in settings keyed by host (pins, pre-approvals): ``VigilText/HostName``'s
/// canonical form, IPv6 in brackets.
enum HostKey {
    static func canonical(_ host: String) -> String {
        let bare = HostName.canonical(host)
        return bare.contains(":") ? "[\(bare)]" : bare
    }

    /// `host` or `host:port` from a setting's key, canonical; the port as a number.
    static func parse(_ key: String) -> (host: String, port: Int?) {
        let text = key.lowercased()
        if text.hasPrefix("["), let close = text.firstIndex(of: "]") {
            let host = String(text[...close])
            let rest = text[text.index(after: close)...]
            return (canonical(host), rest.hasPrefix(":") ? Int(rest.dropFirst()) : nil)
        }
        if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            return (canonical(String(text[..<colon])), Int(text[text.index(after: colon)...]))
        }
        return (canonical(text), nil)
    }

    /// The keys an endpoint is found under: `host:port` and `host`.
    static func keys(for endpoint: Endpoint) -> [String] {
        let host = canonical(endpoint.host)
        return ["\(host):\(endpoint.port)", host]
    }

    /// The storage key for a setting's `host[:port]`.
    static func key(_ setting: String) -> String {
        let (host, port) = parse(setting)
        return port.map { "\(host):\($0)" } ?? host
    }
}

/// Values per host (and port) from a setting's `HOST[:PORT]=VALUE` entries: what pins and
/// pre-approvals share. A lookup finds the values for the endpoint's host and port and those for
/// its host alone, however the setting and the URL write the host.
struct HostKeyedValues: Sendable, Hashable {
    private(set) var entries: [String: Set<String>] = [:]

    init() {}

    /// `normalize` turns an entry's value into the stored form; nil drops the entry.
    init(settingValues: [String], normalize: (String) -> String?) {
        for item in settingValues {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let value = normalize(parts[1]) else { continue }
            entries[HostKey.key(parts[0]), default: []].insert(value)
        }
    }

    var isEmpty: Bool { entries.isEmpty }

    func values(for endpoint: Endpoint) -> Set<String> {
        HostKey.keys(for: endpoint).reduce(into: Set<String>()) { $0.formUnion(entries[$1] ?? []) }
    }
}
