import FoundationEssentials
public import VigilHTTP
public import VigilSecrets
import VigilText

/// Nextcloud's Login Flow v2, the protocol its own clients log in with: `POST
/// {server}/index.php/login/v2` answers a `login` URL for the browser and a `poll` endpoint with a
/// token; the client posts the token there (404 while the user has not approved) until it gets
/// `server`, `loginName` and an app password. The app password is revoked with `DELETE
/// {server}/ocs/v2.php/core/apppassword`.
///
/// The poll token and the app password are credentials: sent only to the origin the user reviewed
/// (a poll endpoint on another https origin only when the user approves it, as a redirect), never
/// over plain HTTP; the login page, which the browser opens, must be https and is named when it is
/// on another origin. Bodies that carry them are not logged.
public struct LoginFlowV2: Sendable {
    /// A flow the server started: where the user logs in, and where Vigil asks for the result.
    public struct Started: Sendable {
        /// The page the browser opens.
        public var login: String
        /// Where the token is posted.
        public var pollEndpoint: String
        /// The poll token (a credential: whoever holds it gets the app password).
        var token: Secret
    }

    /// What the server gives once the user approved.
    public struct Grant: Sendable {
        /// The server URL the server names for the account.
        public var server: String
        /// The user who logged in.
        public var loginName: String
        /// The app password (a credential, used with Basic).
        public var appPassword: Secret
    }

    /// The trust-gated client every request goes through.
    public var client: HTTPClient
    /// The server's URL, reviewed (its origin is the only one credentials go to unless approved).
    public var server: String
    /// Waits between polls: the first ones short, then the last repeated (bounded).
    public var pollDelays: [Duration] = [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2)]
    /// How long the server keeps a flow (Nextcloud: 20 minutes); the poll stops then.
    public static let flowLifetime: Duration = .seconds(20 * 60)

    /// The flow's endpoints, relative to the server URL.
    static let startPath = "index.php/login/v2"
    static let appPasswordPath = "ocs/v2.php/core/apppassword"

    /// A flow client for `server` through `client`.
    public init(client: HTTPClient, server: String) {
        self.client = client
        self.server = AuthenticationDetector.trimmed(server)
    }

    /// Starts a flow. Throws ``LoginFlowError`` for an answer that is not a flow or a URL over
    /// plain HTTP. The poll endpoint may be on another origin: the caller asks the user
    /// (``isOwnOrigin(_:)``) before anything is sent there.
    public func start() async throws -> Started {
        // The server names the app password after the request's User-Agent (Vigil's own).
        var request = HTTPRequest(method: "POST", url: "\(server)/\(Self.startPath)", headers: [(name: "Accept", value: "application/json")])
        request.logsBodies = false
        let answer = try await client.send(request)
        if let redirect = answer.redirect {
            throw LoginFlowError(
                .invalidAnswer, "\(server) answers the login flow's start with a redirect (\(redirect.status)) to \(redirect.location); not followed.")
        }
        if answer.status == 404 || answer.status == 405 {
            throw LoginFlowError(.notOffered, "\(server) has no Login Flow v2 (HTTP \(answer.status) at /\(Self.startPath)).")
        }
        if answer.status >= 500 || answer.status == 429 {
            throw LoginFlowError(.unavailable, "\(server) cannot start a login flow now (HTTP \(answer.status)); try again later.")
        }
        guard answer.status == 200, let object = JSONValue.parseObject(answer.body), let poll = object["poll"]?.object,
            let token = poll["token"]?.string, !token.isEmpty, let endpoint = poll["endpoint"]?.string, let login = object["login"]?.string
        else {
            throw LoginFlowError(.invalidAnswer, "\(server) answered the login flow's start with HTTP \(answer.status) and no login URL and poll endpoint.")
        }
        try Self.requireHTTPS(login, what: "the login page", server: server)
        try Self.requireHTTPS(endpoint, what: "the poll endpoint", server: server)
        return Started(login: login, pollEndpoint: endpoint, token: Secret(token))
    }

    /// Whether `url` is on the reviewed server's origin.
    public func isOwnOrigin(_ url: String) -> Bool { !AuthenticationDetector.isOtherOrigin(url, than: server) }

    /// Polls until the user approved, the flow expired (`deadline`), or the task is cancelled
    /// (Ctrl-C). Throws ``LoginFlowError`` (`.timeout`, `.cancelled`, `.invalidAnswer`, `.plainHTTP`).
    public func poll(_ started: Started, until deadline: ContinuousClock.Instant) async throws -> Grant {
        var tries = 0
        while true {
            if Task.isCancelled { throw LoginFlowError(.cancelled, "The login was interrupted; nothing was kept.") }
            let form = started.token.withValue { "token=" + PercentEncoding.encode($0, allowing: PercentEncoding.isUnreserved) }
            var request = HTTPRequest(
                method: "POST", url: started.pollEndpoint,
                headers: [(name: "Content-Type", value: "application/x-www-form-urlencoded"), (name: "Accept", value: "application/json")],
                body: Array(form.utf8))
            request.logsBodies = false
            let answer = try await client.send(request)
            if answer.status == 200 { return try grant(answer) }
            if let redirect = answer.redirect {
                throw LoginFlowError(.invalidAnswer, "The poll endpoint redirects (\(redirect.status)) to \(redirect.location); not followed.")
            }
            guard answer.status == 404 || answer.status == 429 || answer.status >= 500 else {
                throw LoginFlowError(.invalidAnswer, "The poll endpoint answered HTTP \(answer.status), which is not a login flow's answer.")
            }
            let delay = pollDelays.isEmpty ? .seconds(2) : pollDelays[min(tries, pollDelays.count - 1)]
            tries += 1
            guard ContinuousClock.now + delay < deadline else {
                throw LoginFlowError(.timeout, "The login was not approved in the browser in time (the flow expired); nothing was kept. Start again.")
            }
            do { try await Task.sleep(for: delay) } catch { throw LoginFlowError(.cancelled, "The login was interrupted; nothing was kept.") }
        }
    }

    /// The poll's 200 answer, read and held to the reviewed origin.
    func grant(_ answer: HTTPResponse) throws -> Grant {
        guard let object = JSONValue.parseObject(answer.body), let named = object["server"]?.string, let login = object["loginName"]?.string,
            !login.isEmpty, let password = object["appPassword"]?.string, !password.isEmpty
        else {
            throw LoginFlowError(.invalidAnswer, "The poll endpoint's answer has no server, loginName and appPassword.")
        }
        return Grant(server: AuthenticationDetector.trimmed(named), loginName: login, appPassword: Secret(password))
    }

    /// Revokes `appPassword` (`loginName`'s) at the server: `DELETE ocs/v2.php/core/apppassword`
    /// with it as Basic credentials. True when the server confirmed (200).
    public func revoke(appPassword: Secret, loginName: String) async throws -> Bool {
        let authorization = appPassword.withValue { "Basic " + Data("\(loginName):\($0)".utf8).base64EncodedString() }
        var request = HTTPRequest(
            method: "DELETE", url: "\(server)/\(Self.appPasswordPath)",
            headers: [(name: "Authorization", value: authorization), (name: "OCS-APIRequest", value: "true"), (name: "Accept", value: "application/json")])
        request.logsBodies = false
        return try await client.send(request).status == 200
    }

    /// `scheme://host[:port]` of `url`, without its path and query (which may carry a token).
    static func origin(of url: String) -> String {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme, let host = parts.host else { return "an unreadable URL" }
        return "\(scheme)://\(host.contains(":") ? "[\(host)]" : host)" + (parts.port.map { ":\($0)" } ?? "")
    }

    /// A URL the flow answered must be https (plain HTTP would carry the token or the user's
    /// password in clear): refused with what the administrator should fix.
    static func requireHTTPS(_ url: String, what: String, server: String) throws {
        guard url.lowercased().hasPrefix("https://") else {
            // The origin only: the login page's URL carries the flow's token.
            throw LoginFlowError(
                .plainHTTP,
                "The server names \(what) on \(origin(of: url)), not https: " + PlainHTTPAdvice.text(server: server, product: "Nextcloud")
                    + " Nothing was sent there.")
        }
    }
}
