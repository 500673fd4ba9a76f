/// One HTTP request. The client sends it as given and never follows a redirect by itself.
public struct HTTPRequest: Sendable {
    /// The HTTP method (`GET`, `PROPFIND`, ...).
    public var method: String
    /// Absolute `https://` URL (or `http://` when ``HTTPClient/Configuration/allowPlainHTTP``).
    public var url: String
    /// Header fields in order. An `Authorization` value is a credential: it is never logged.
    public var headers: [(name: String, value: String)]
    /// The request body; nil: none.
    public var body: [UInt8]?
    /// Whether `log.http-requests` may show the bodies of this exchange (false for the user's
    /// own data: file listings and contents).
    public var logsBodies = true
    /// The request carries a one-time secret (a refresh token, an authorization code): it is sent
    /// once, never again, not even after an access gateway's cookie round trip.
    public var sentOnce = false

    /// A request, `GET` without headers or body unless given.
    public init(method: String = "GET", url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
