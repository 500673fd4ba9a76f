/// A server's answer, with the TLS decision that let the request go and, for a 3xx with a
/// `Location`, the redirect for the caller to report and approve (never followed here).
public struct HTTPResponse: Sendable {
    /// The HTTP status code.
    public var status: Int
    /// Header fields in order, names as the server sent them.
    public var headers: [(name: String, value: String)]
    /// The answer's body (empty when none).
    public var body: [UInt8]
    /// The policy's decision for this connection (nil for plain HTTP).
    public var tls: TLSDecision?
    /// For a 3xx with a usable `Location`: where the server sends the client; never followed here.
    public var redirect: Redirect?
    /// An access gateway in front of the server (an APM) sent the client to a hop on the same
    /// origin that let it no further (no session cookie, or no way back): ``redirect`` is the
    /// gateway's, not the server's. A gateway busy for now, retried like a load balancer's blip.
    public var heldByAccessGateway = false
    /// The server asked for a client certificate on this connection (and what was presented).
    public var clientCertificate: ClientCertificateExchange?
    /// The request went on a connection an earlier request of the same client opened
    /// (``HTTPClient/keepingConnections()``), judged again before it was sent.
    public var reusedConnection = false
    /// Which proxy the request went through (or direct), and why.
    public var via: ProxyUse?

    /// The first value of a header field, by case-insensitive name.
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }
}

/// Where a server sends the client next, and what that would mean.
public struct Redirect: Sendable, Hashable {
    /// The 3xx status code.
    public var status: Int
    /// The `Location`, resolved against the request URL.
    public var location: String
    /// https to http: must never be followed.
    public var isDowngrade: Bool
    /// Another host or port: its certificate must be reviewed, and credentials must not follow.
    public var changesHost: Bool
    /// The `Location` named a user or a password; ``location`` is shown without them, and such a
    /// redirect is never followed.
    public var carriesUserInformation: Bool

    /// Resolves `location` against `base` and classifies the hop; nil when `location` is not a
    /// usable http(s) URL.
    public init?(status: Int, location: String, base: String) {
        guard let baseURL = URLParts(base), let target = URLParts(location, relativeTo: baseURL) else { return nil }
        self.status = status
        self.location = target.text
        self.isDowngrade = baseURL.scheme == "https" && target.scheme == "http"
        self.changesHost = target.host.lowercased() != baseURL.host.lowercased() || target.port != baseURL.port
        self.carriesUserInformation = target.hadUserInformation
    }
}
