import FoundationEssentials
import Glibc
import VigilText

/// The name a certificate must be valid for: a DNS name, an IP address or an email address.
public struct PeerName: Sendable, Hashable, Codable, CustomStringConvertible {
    /// What kind of name it is (raw values `DNS`, `IP`, `RFC822`).
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A DNS host name.
        case dns = "DNS"
        /// An IP address.
        case ip = "IP"
        /// An email address.
        case email = "RFC822"
    }
    /// What kind of name it is.
    public var kind: Kind
    /// The name (an IP literal without brackets when made from a host).
    public var value: String

    /// A name of `kind`; the value is not checked.
    public init(kind: Kind, value: String) {
        self.kind = kind
        self.value = value
    }

    /// An IP literal (v4, v6, with or without brackets) becomes `.ip`, anything else `.dns`.
    /// A fully qualified name's trailing dot (`files.example.com.`) is dropped: it names the same
    /// host, and certificates never carry it (as curl and browsers match it).
    public init(host: String) {
        var host = host
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let isIP = PeerName.isIPAddress(host)
        self.init(kind: isIP ? .ip : .dns, value: isIP ? host : HostName.withoutTrailingDot(host))
    }

    /// The name itself.
    public var description: String { value }

    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
