import FoundationEssentials
import Glibc
public import VigilHTTP
public import VigilSecrets
import VigilText

/// What an OpenID Connect login gives: the tokens, the id_token's verified claims, and the client
/// id they were issued to (registered for this login, or configured).
public struct OpenIDConnectLogin: Sendable {
    /// A completed login.
    public struct Result: Sendable {
        /// The tokens from the token endpoint.
        public var tokens: OAuth2Tokens
        /// The id_token's validated claims.
        public var claims: IDTokenClaims
        /// The client the tokens were issued to: registered for this login, or the configured one.
        public var clientID: String
    }

    /// The trust-gated client every request goes through (registration, token, JWKS, userinfo).
    public var client: HTTPClient
    /// The provider's discovery document, already checked by ``AuthenticationDetector``.
    public var configuration: OpenIDConfiguration
    /// The configured client (`authentication-oauth2.oa2-client-id`), used when registration is
    /// off or the provider does not offer it.
    public var clientID: String?
    /// `authentication-oidc.register-client`.
    public var registerClient = true
    /// `authentication-oidc.scope`.
    public var scope = "openid offline_access email profile"
    /// `authentication-oidc.prompt`; nil or empty: none sent.
    public var prompt: String?
    /// How long the user has to finish in the browser.
    public var timeout: Duration = .seconds(300)
    /// The loopback port (`authentication-oauth2.oa2-redirect-port`); 0 picks a free one.
    public var redirectPort = 0
    /// `authentication-oauth2.oa2-client-secret` for a configured confidential client (a
    /// registered client is public).
    public var clientSecret: Secret?
    /// A client configured for another server (and the setting binding it): named in the error
    /// when this provider cannot register one, so that the user is not told to set what is set.
    public var configuredClientElsewhere: (server: String, setting: String)?
    /// Waits between tries when userinfo answers 401 to the token just issued (a cluster whose
    /// nodes learn new tokens late); bounded.
    public var newTokenRetryDelays: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600)]

    /// A login with `configuration`; `clientID` nil: only dynamic registration can give one.
    public init(client: HTTPClient, configuration: OpenIDConfiguration, clientID: String? = nil) {
        self.client = client
        self.configuration = configuration
        self.clientID = clientID
    }

    /// Authorization code with PKCE S256, `state`, `nonce`, the RFC 9207 `iss` check, the code
    /// exchanged through the trust-gated client, the id_token validated (``IDTokenValidator``), and
    /// its subject checked against the userinfo endpoint when there is one. `user` is the
    /// `login_hint`, and the id_token's user must be that user.
    public func login(user: String, openBrowser: @Sendable (String) async -> Void) async throws -> Result {
        try Self.check(configuration)
        let receiver = try LoopbackRedirectReceiver(port: redirectPort)
        let clientID = try await self.clientID(redirectURI: receiver.redirectURI)
        let pkce = PKCE()
        let state = PKCE.randomToken(), nonce = PKCE.randomToken()
        var query = [
            ("response_type", "code"), ("client_id", clientID), ("redirect_uri", receiver.redirectURI), ("scope", scope),
            ("code_challenge", pkce.challenge), ("code_challenge_method", pkce.method), ("state", state), ("nonce", nonce), ("login_hint", user),
        ]
        if let prompt, !prompt.isEmpty { query.append(("prompt", prompt)) }
        let endpoint = configuration.authorizationEndpoint
        let url = endpoint + (endpoint.contains("?") ? "&" : "?") + OAuth2Login.form(query)

        async let response = receiver.waitForResponse(timeout: timeout, state: state)
        await openBrowser(url)
        let answer: [String: String]
        do { answer = try await response } catch let error as OAuth2Error {
            throw OAuth2Login.explained(error, redirectURI: receiver.redirectURI, fixedPort: redirectPort, clientID: clientID)
        }
        guard answer["state"].map({ OAuth2Login.constantTimeEqual($0, state) }) == true else {
            throw OAuth2Error(.stateMismatch, "The authorization response does not carry the state Vigil sent; it is ignored.")
        }
        // RFC 9207: an authorization response that names another issuer came from another provider.
        if let issuer = answer["iss"], issuer != configuration.issuer {
            throw OAuth2Error(
                .issuerMismatch,
                "The authorization response comes from another issuer (\(issuer)) than \(configuration.issuer): a mix-up; nothing is exchanged.")
        }
        if answer["iss"] == nil, configuration.authorizationResponseIssParameterSupported == true {
            throw OAuth2Error(.issuerMismatch, "The provider promises an iss in its authorization responses (RFC 9207), and this one has none.")
        }
        if let error = answer["error"] {
            if RedirectRegistration.refusesRedirect(error: error, description: answer["error_description"]) {
                throw OAuth2Error(
                    .redirectNotRegistered, RedirectRegistration.advice(redirectURI: receiver.redirectURI, fixedPort: redirectPort, clientID: clientID))
            }
            throw OAuth2Error(.refused, "The provider refused: \(error)" + (answer["error_description"].map { " (\($0))" } ?? "") + ".")
        }
        guard let code = answer["code"], !code.isEmpty else { throw OAuth2Error(.refused, "The authorization response carries no code.") }

        let tokenResponse = try await OAuth2TokenClient(client: client, clientID: clientID, authentication: authentication(for: clientID))
            .post(
                configuration.tokenEndpoint,
                [
                    ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", receiver.redirectURI),
                    ("code_verifier", pkce.verifier),
                ])
        let tokens = try OAuth2Login.tokens(from: tokenResponse)
        guard let idToken = tokens.idToken else {
            throw OAuth2Error(.invalidIDToken, "The token response has no id_token: this is OAuth2, not OpenID Connect; the tokens are discarded.")
        }
        let validator = IDTokenValidator(issuer: configuration.issuer, clientID: clientID, nonce: nonce)
        let jwks = configuration.jwksURI ?? ""
        let claims = try await idToken.withValue { token in
            try await validator.validate(token) { try await self.fetch(jwks, what: "the JWKS") }
        }
        // Who logged in is the server's to say (account setup asks it with the token): the
        // provider's `sub` may be an opaque key and `preferred_username` absent (OpenID Connect
        // Core says a client must not rely on it), so neither is compared with `user` here.
        try await checkUserinfo(subject: claims.sub, accessToken: tokens.accessToken)
        return Result(tokens: tokens, claims: claims, clientID: clientID)
    }

    /// The configured secret for the configured client, as the provider accepts it; none for a
    /// client registered as public.
    public func authentication(for clientID: String) -> OAuth2ClientAuthentication {
        clientID == self.clientID ? OAuth2ClientAuthentication.choose(secret: clientSecret, supported: configuration.tokenEndpointAuthMethodsSupported) : .none
    }

    /// A discovery document Vigil logs in with: S256 offered (when the provider lists its PKCE
    /// methods at all) and a JWKS to check id_tokens with.
    static func check(_ configuration: OpenIDConfiguration) throws {
        if let methods = configuration.codeChallengeMethodsSupported, !methods.contains("S256") {
            throw OAuth2Error(
                .discoveryRejected,
                "The provider does not offer PKCE with S256 (it lists \(methods.joined(separator: ", "))); Vigil does not log in without it.")
        }
        guard let jwks = configuration.jwksURI, jwks.lowercased().hasPrefix("https://") else {
            throw OAuth2Error(.discoveryRejected, "The provider names no https jwks_uri: id_tokens could not be checked.")
        }
        // What Vigil itself sends or trusts (the code and verifier, tokens, the keys) goes only to
        // the server whose certificate the user reviewed; another host would get no review.
        let origin = Self.origin(configuration.issuer)
        let named =
            [("token_endpoint", configuration.tokenEndpoint), ("jwks_uri", jwks)]
            + [
                ("registration_endpoint", configuration.registrationEndpoint), ("userinfo_endpoint", configuration.userinfoEndpoint),
                ("revocation_endpoint", configuration.revocationEndpoint),
            ].compactMap { name, url in url.map { (name, $0) } }
        for (name, url) in named where origin == nil || Self.origin(url) != origin {
            throw OAuth2Error(
                .discoveryRejected,
                "The provider's \(name) (\(url)) is not on the server reviewed (\(configuration.issuer)); Vigil sends nothing to a host it has not reviewed.")
        }
    }

    /// `https://host:port` of an https URL (port 443 when none is given); nil otherwise.
    static func origin(_ url: String) -> String? {
        guard let parts = URLComponents(string: url), parts.scheme?.lowercased() == "https", let host = parts.host?.lowercased(), !host.isEmpty,
            parts.user == nil, parts.password == nil
        else { return nil }
        return "https://\(host):\(parts.port ?? 443)"
    }

    /// The configured client, or one registered now for this redirect URI (RFC 7591).
    func clientID(redirectURI: String) async throws -> String {
        if registerClient, let registration = configuration.registrationEndpoint {
            let body: JSONValue = .object([
                "client_name": .string("Vigil"), "application_type": .string("native"), "redirect_uris": .array([.string(redirectURI)]),
                "grant_types": .array([.string("authorization_code"), .string("refresh_token")]), "response_types": .array([.string("code")]),
                "token_endpoint_auth_method": .string("none"),
            ])
            let answer = try await client.send(
                HTTPRequest(
                    method: "POST", url: registration,
                    headers: [(name: "Content-Type", value: "application/json"), (name: "Accept", value: "application/json")],
                    body: body.encoded()))
            if let redirect = answer.redirect { throw OAuth2Error(.registration, "Client registration redirects to \(redirect.location); not followed.") }
            guard answer.status == 201 || answer.status == 200,
                let object = JSONValue.parseObject(answer.body),
                let id = object["client_id"]?.string, !id.isEmpty
            else {
                let object = JSONValue.parseObject(answer.body)
                if RedirectRegistration.refusesRedirect(error: object?["error"]?.string, description: object?["error_description"]?.string) {
                    throw OAuth2Error(
                        .redirectNotRegistered,
                        "The provider refused to register Vigil as a client with a loopback redirect URI (HTTP \(answer.status)). "
                            + RedirectRegistration.advice(redirectURI: redirectURI, fixedPort: redirectPort, clientID: nil))
                }
                throw OAuth2Error(.registration, "The provider refused to register Vigil as a client (HTTP \(answer.status)).")
            }
            return id
        }
        guard let clientID, !clientID.isEmpty else {
            let offers = registerClient ? "The provider offers no client registration" : "Client registration is off (authentication-oidc.register-client)"
            if let elsewhere = configuredClientElsewhere {
                throw OAuth2Error(
                    .registration,
                    "\(offers), and the OAuth2 client configured (authentication-oauth2.oa2-client-id) is bound to \(elsewhere.server) by \(elsewhere.setting), not to this server: register a client for Vigil with this server's provider and set \(elsewhere.setting) to this server's URL, or add the account on \(elsewhere.server)."
                )
            }
            throw OAuth2Error(.registration, "\(offers): set authentication-oauth2.oa2-client-id to the client registered for Vigil.")
        }
        return clientID
    }

    /// GET `url` through the trust-gated client; an answer other than 200 is an error.
    func fetch(_ url: String, what: String) async throws -> [UInt8] {
        let answer = try await client.send(HTTPRequest(url: url, headers: [(name: "Accept", value: "application/json")]))
        if let redirect = answer.redirect { throw OAuth2Error(.discoveryRejected, "Fetching \(what) redirects to \(redirect.location); not followed.") }
        guard answer.status == 200 else { throw OAuth2Error(.refused, "The provider answered \(what) with HTTP \(answer.status).") }
        return answer.body
    }

    /// OpenID Connect Core 5.3.2: userinfo's `sub` must be the id_token's.
    func checkUserinfo(subject: String, accessToken: Secret) async throws {
        guard let userinfo = configuration.userinfoEndpoint else { return }
        let request = accessToken.withValue { token in
            HTTPRequest(url: userinfo, headers: [(name: "Accept", value: "application/json"), (name: "Authorization", value: "Bearer \(token)")])
        }
        let (answer, tries) = try await client.send(request, retryingAfter: newTokenRetryDelays, when: { $0.status == 401 })
        if let redirect = answer.redirect { throw OAuth2Error(.discoveryRejected, "Fetching userinfo redirects to \(redirect.location); not followed.") }
        guard answer.status == 200 else {
            throw OAuth2Error(.refused, "The provider answered userinfo with HTTP \(answer.status)" + (tries > 1 ? " (\(tries) tries)." : "."))
        }
        let body = answer.body
        guard let object = JSONValue.parseObject(body), let sub = object["sub"]?.string else {
            throw OAuth2Error(.invalidIDToken, "The userinfo answer has no subject.")
        }
        guard sub == subject else {
            throw OAuth2Error(.userMismatch, "The userinfo subject is not the id_token's: the tokens are for different users; nothing is kept.")
        }
    }
}
