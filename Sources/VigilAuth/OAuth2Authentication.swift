public import VigilSecrets

/// OAuth2 with the server's OAuth2 app (``OAuth2Login``): a configured client id, the browser, a
/// loopback redirect and PKCE.
public struct OAuth2Authentication: AuthenticationMethod {
    /// `com.owncloud.oauth2`.
    public let identifier = AuthenticationMethodIdentifier.oauth2
    /// The access token and the refresh token.
    public let secretKinds: [SecretKey.Kind] = [.accessToken, .refreshToken]
    /// True: the tokens are refreshed, and revoked on removal.
    public let usesTokens = true

    /// The method; its settings come with each login's context.
    public init() {}

    /// Logs in through the browser with the configured client (``OAuth2Login``). Throws `AuthenticationError`
    /// (`.configuration`) when no client id is set, or the login's `OAuth2Error`.
    public func logIn(_ context: AuthenticationContext, interaction: any AuthenticationInteraction) async throws -> AuthenticationLogin {
        let settings = context.settings
        guard let clientID = settings.oauth2ClientID, !clientID.isEmpty else {
            throw AuthenticationError(
                .configuration,
                "OAuth2 needs a client registered on this server: set authentication-oauth2.oa2-client-id (and oa2-client-secret for a confidential client), with authentication-oauth2.oa2-client-server (or bookmark.default-url) naming this server."
            )
        }
        var login = OAuth2Login(
            client: context.client, authorizationEndpoint: "\(context.server)/\(settings.oauth2AuthorizationPath)",
            tokenEndpoint: "\(context.server)/\(settings.oauth2TokenPath)", clientID: clientID)
        login.timeout = settings.browserTimeout
        login.redirectPort = settings.redirectPort
        login.clientAuthentication = OAuth2ClientAuthentication.choose(secret: settings.oauth2ClientSecret, supported: nil)
        await interaction.progress("Log in as \(context.user) in the browser; Vigil waits for it on a loopback address.")
        let tokens = try await login.login(user: context.user) { url in await interaction.openBrowser(url) }
        return Self.login(tokens, user: context.user, server: context.server, clientID: clientID, tokenEndpoint: login.tokenEndpoint, revocationEndpoint: nil)
    }

    /// `Bearer` and the stored access token; nil without one.
    public func authorization(user: String, secrets: [SecretKey.Kind: Secret]) -> String? {
        secrets[.accessToken].map { token in token.withValue { "Bearer \($0)" } }
    }

    /// Tokens as a login: the access token proves them, both go to the keyring.
    static func login(_ tokens: OAuth2Tokens, user: String, server: String, clientID: String, tokenEndpoint: String, revocationEndpoint: String?)
        -> AuthenticationLogin
    {
        var secrets: [SecretKey.Kind: Secret] = [.accessToken: tokens.accessToken]
        if let refresh = tokens.refreshToken { secrets[.refreshToken] = refresh }
        return AuthenticationLogin(
            secrets: secrets, authorization: tokens.accessToken.withValue { Secret("Bearer \($0)") },
            refusal: "The token from the browser login does not open \(user)'s files on \(server): was another user logged in?",
            clientID: clientID, tokenEndpoint: tokenEndpoint, revocationEndpoint: revocationEndpoint, expiresIn: tokens.expiresIn)
    }
}
