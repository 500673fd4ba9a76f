/// Hosts of a scenario that ask for a client certificate (mutual TLS), as nginx's
/// `ssl_verify_client on` (required) or `optional` do: they send a CertificateRequest naming the
/// accepted CA, verify what is presented against it, and record the subject presented.
public struct ClientAuthPlan: Sendable, Hashable, Codable {
    /// Whether the client certificate is required or optional.
    public enum Mode: String, Sendable, Hashable, Codable {
        /// No certificate, or one that does not verify: the handshake fails with a TLS alert.
        case required
        /// Asked; a connection without one goes on (one that does not verify still fails).
        case optional
    }

    /// Required or optional.
    public var mode: Mode
    /// The hosts that ask (default: host 1).
    public var hosts: [Int]?
    /// The testcerts CA whose certificates are accepted (default `client-ca`).
    public var ca: String?

    /// The hosts that ask: `hosts`, else host 1.
    public var effectiveHosts: [Int] { hosts ?? [1] }
    /// The accepted CA: `ca`, else `client-ca`.
    public var effectiveCA: String { ca ?? "client-ca" }

    /// A plan asking in `mode`; nil `hosts` and `ca` take the defaults.
    public init(mode: Mode, hosts: [Int]? = nil, ca: String? = nil) {
        self.mode = mode
        self.hosts = hosts
        self.ca = ca
    }
}
