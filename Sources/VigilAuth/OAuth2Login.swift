import FoundationEssentials
import Glibc
public import VigilHTTP
public import VigilSecrets
import VigilText

/// Tokens from a completed login. The values are ``VigilSecrets/Secret``s: never printed.
public struct OAuth2Tokens: Sendable {
    /// The access token (`access_token`).
    public var accessToken: Secret
    /// The refresh token (`refresh_token`); nil when the server gave none.
    public var refreshToken: Secret?
    /// `token_type` as the server wrote it: always Bearer, in any case (other types are refused).
    public var tokenType: String
    /// Seconds the access token lives, as the server said.
    public var expiresIn: Int?
    /// OpenID Connect's id_token (a JWT, still to be validated).
    public var idToken: Secret?
}

/// OAuth2 authorization code with PKCE through the system browser and a loopback redirect
/// (RFC 6749, RFC 7636, RFC 8252), as ownCloud's OAuth2 app offers it:
/// 1. a listener on 127.0.0.1 (``LoopbackRedirectReceiver``), a fresh PKCE verifier and `state`;
/// 2. the browser opens the authorization URL (the caller's `openBrowser`);
/// 3. the redirect comes back to the listener; its `state` must be the one sent;
/// 4. the code is exchanged at the token endpoint, with the verifier, through ``VigilHTTP/HTTPClient``
///    (so the token endpoint's certificate is judged like every other).
public struct OAuth2Login: Sendable {
    /// The trust-gated client the code is exchanged through.
    public var client: HTTPClient
    /// The authorization URL the browser opens; the login's query is appended (after `&` when it has one).
    public var authorizationEndpoint: String
    /// The URL the code is exchanged at.
    public var tokenEndpoint: String
    /// The `client_id` sent.
    public var clientID: String
    /// The `scope` sent; nil: none.
    public var scope: String?
    /// How long the user has to finish in the browser.
    public var timeout: Duration = .seconds(300)
    /// The loopback port (`authentication-oauth2.oa2-redirect-port`); 0 picks a free one.
    public var redirectPort = 0
    /// A confidential client's secret at the token endpoint.
    public var clientAuthentication = OAuth2ClientAuthentication.none

    /// A login with the defaults: five minutes in the browser, a free port, a public client.
    public init(client: HTTPClient, authorizationEndpoint: String, tokenEndpoint: String, clientID: String, scope: String? = nil) {
        self.client = client
        self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint
        self.clientID = clientID
        self.scope = scope
    }

    /// Runs the login; `user` is passed as `login_hint`.
    public func login(user: String?, openBrowser: @Sendable (String) async -> Void) async throws -> OAuth2Tokens {
        let receiver = try LoopbackRedirectReceiver(port: redirectPort)
        let pkce = PKCE()
        let state = PKCE.randomToken()
        var query = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", receiver.redirectURI),
            ("code_challenge", pkce.challenge), ("code_challenge_method", pkce.method), ("state", state),
        ]
        if let scope { query.append(("scope", scope)) }
        if let user { query.append(("login_hint", user)) }
        let url = authorizationEndpoint + (authorizationEndpoint.contains("?") ? "&" : "?") + Self.form(query)

        async let response = receiver.waitForResponse(timeout: timeout, state: state)
        await openBrowser(url)
        let answer: [String: String]
        do { answer = try await response } catch let error as OAuth2Error {
            throw Self.explained(error, redirectURI: receiver.redirectURI, fixedPort: redirectPort, clientID: clientID)
        }
        guard answer["state"].map({ Self.constantTimeEqual($0, state) }) == true else {
            throw OAuth2Error(.stateMismatch, "The authorization response does not carry the state Vigil sent; it is ignored.")
        }
        if let error = answer["error"] {
            if RedirectRegistration.refusesRedirect(error: error, description: answer["error_description"]) {
                throw OAuth2Error(
                    .redirectNotRegistered, RedirectRegistration.advice(redirectURI: receiver.redirectURI, fixedPort: redirectPort, clientID: clientID))
            }
            throw OAuth2Error(.refused, "The authorization server refused: \(error)" + (answer["error_description"].map { " (\($0))" } ?? "") + ".")
        }
        guard let code = answer["code"], !code.isEmpty else {
            throw OAuth2Error(.refused, "The authorization response carries no code.")
        }
        let tokenResponse = try await OAuth2TokenClient(client: client, clientID: clientID, authentication: clientAuthentication)
            .post(
                tokenEndpoint, [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", receiver.redirectURI), ("code_verifier", pkce.verifier)])
        return try Self.tokens(from: tokenResponse)
    }

    /// A timeout waiting for the browser also says what an error page about
    /// the redirect URI means (a provider that refuses an unregistered redirect shows it in the
    /// browser and never comes back, as RFC 6749 section 4.1.2.1 asks).
    static func explained(_ error: OAuth2Error, redirectURI: String, fixedPort: Int, clientID: String) -> OAuth2Error {
        guard error.code == .timeout, !error.reason.contains("cancelled") else { return error }
        return OAuth2Error(
            .timeout,
            error.reason + " If the browser showed an error about the redirect URI \(redirectURI) (Keycloak: \"Invalid parameter: redirect_uri\"): "
                + RedirectRegistration.registration(fixedPort: fixedPort, clientID: clientID).replacing("Register", with: "register", maxReplacements: 1))
    }

    /// RFC 6749 section 5.1 (success) and 5.2 (error).
    static func tokens(from response: HTTPResponse) throws -> OAuth2Tokens {
        let object = JSONValue.parseObject(response.body)
        guard response.status == 200 else {
            let error = object?["error"]?.string ?? "HTTP \(response.status)"
            throw OAuth2Error(.refused, "The token endpoint refused the code: \(error).")
        }
        guard let object, let access = object["access_token"]?.string, !access.isEmpty,
            let type = object["token_type"]?.string, type.lowercased() == "bearer"
        else {
            throw OAuth2Error(.invalidTokenResponse, "The token endpoint's answer has no Bearer access_token.")
        }
        return OAuth2Tokens(
            accessToken: Secret(access), refreshToken: object["refresh_token"]?.string.map(Secret.init),
            tokenType: type, expiresIn: object["expires_in"]?.int, idToken: object["id_token"]?.string.map(Secret.init))
    }

    static func form(_ items: [(String, String)]) -> String {
        items.map { "\(formEncoded($0.0))=\(formEncoded($0.1))" }.joined(separator: "&")
    }

    /// Percent-encoding of everything but the unreserved characters.
    static func formEncoded(_ text: String) -> String {
        PercentEncoding.encode(text, allowing: PercentEncoding.isUnreserved)
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
