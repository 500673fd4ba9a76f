internal import CCurl
import FoundationEssentials
import Glibc

/// A name pinned to an address, with curl's `--resolve HOST:PORT:ADDRESS` semantics: connections
/// to HOST on PORT go to ADDRESS, while SNI and the certificate's name check still use HOST. Lets
/// DNS-named test hosts (`cloud.example.test`) live on loopback addresses without touching DNS.
public struct HostResolution: Sendable, Hashable, CustomStringConvertible {
    /// The name connected to (also used for SNI and the certificate check).
    public var host: String
    /// The port the pin applies to.
    public var port: Int
    /// An IPv4 or IPv6 literal (IPv6 without brackets).
    public var address: String

    /// A pin of `host`:`port` to `address`; the values are not checked.
    public init(host: String, port: Int, address: String) {
        self.host = host
        self.port = port
        self.address = address
    }

    /// Parses `HOST:PORT:ADDRESS` (an IPv6 address may be bracketed); throws
    /// ``HTTPError/Code/invalidURL`` saying what is wrong.
    public init(parsing text: String) throws {
        let parts = text.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else {
            throw HTTPError(.invalidURL, "--resolve takes HOST:PORT:ADDRESS, for example cloud.example.test:443:127.0.0.1.")
        }
        let host = parts[0].lowercased()
        // curl reads a leading '-' as "remove this entry", '+' as "expires", and '*' as "every host".
        guard !host.isEmpty, !host.hasPrefix("-"), !host.hasPrefix("+"),
            host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"/@*[]".utf8.contains($0) })
        else {
            throw HTTPError(
                .invalidURL, "--resolve: the host must be a name: printable ASCII, not starting with '-' or '+', without spaces, '/', '@', '*' or brackets.")
        }
        guard let port = Int(parts[1]), (1...65_535).contains(port) else {
            throw HTTPError(.invalidURL, "--resolve: the port must be from 1 to 65535.")
        }
        var address = parts[2]
        if address.hasPrefix("["), address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        var v4 = in_addr(), v6 = in6_addr()
        guard inet_pton(AF_INET, address, &v4) == 1 || inet_pton(AF_INET6, address, &v6) == 1 else {
            throw HTTPError(.invalidURL, "--resolve: \(address) is not an IPv4 or IPv6 address.")
        }
        self.init(host: host, port: port, address: address)
    }

    /// `HOST:PORT:ADDRESS`, an IPv6 address bracketed, as curl's `--resolve` takes it.
    public var description: String {
        "\(host):\(port):" + (address.contains(":") ? "[\(address)]" : address)
    }

    /// The list libcurl's CURLOPT_RESOLVE takes; free with `vigil_curl_slist_free_all`.
    static func curlList(_ entries: [HostResolution]) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for entry in entries { list = vigil_curl_slist_append(list, entry.description) }
        return list
    }
}
