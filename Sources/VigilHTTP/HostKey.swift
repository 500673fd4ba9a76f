import FoundationEssentials
import Glibc

/// How a host is written in settings keyed by host (pins, pre-approvals): lower case, an IP
/// address in its canonical form (`[0:0:0:0:0:0:0:1]` and `::1` are the same host), IPv6 in brackets.
enum HostKey {
    static func canonical(_ host: String) -> String {
        var bare = host.lowercased()
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            if inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil {
                return "[" + String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "]"
            }
        }
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            if inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count)) != nil {
                return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
        return bare
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
