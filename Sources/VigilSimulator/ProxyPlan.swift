/// A scenario's forward proxies (issue 33): the client is told to use them by its settings
/// (`connection.proxy` `{proxy:N}`, or a PAC file), and each may ask who the client is.
/// A proxy's user is `proxy-user`; its password is planted (a credential like a user's).
public struct ProxyPlan: Sendable, Hashable, Codable {
    /// One proxy.
    public struct Proxy: Sendable, Hashable, Codable {
        /// What the proxy asks for before it opens a tunnel.
        public enum Login: String, Sendable, Hashable, Codable, CaseIterable {
            /// Nothing: every CONNECT is let through.
            case none
            /// `407` with `Proxy-Authenticate: Basic`.
            case basic
            /// `407` with `Proxy-Authenticate: Digest` (MD5, qop auth).
            case digest
        }
        /// What it asks for.
        public var login: Login
        /// The realm it names (default `Vigil Simulated Proxy`).
        public var realm: String?
    }

    /// The proxies, `{proxy:1}` first.
    public var proxies: [Proxy]
    /// A proxy auto-config file served by host 1 over plain HTTP at `/proxy.pac`
    /// (`{http:1}/proxy.pac`); `{proxyhost:N}` in it names proxy N's `address:port`.
    public var pac: String?

    /// Every connection to the simulated hosts must come through this proxy's tunnels (the
    /// client was told to use it, by `connection.proxy` or a PAC file): a client that goes around
    /// it is judged as bypassing the organisation's proxy.
    public var through: Int?

    /// The user the proxies know.
    public static let user = "proxy-user"
}
