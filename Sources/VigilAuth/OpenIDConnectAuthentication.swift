public import VigilSecrets

/// OpenID Connect (``OpenIDConnectLogin``): offered when detection accepted a discovery document
/// whose issuer is the server.
public struct OpenIDConnectAuthentication: AuthenticationMethod {
    /// `com.owncloud.openid-connect`.
    public let identifier = AuthenticationMethodIdentifier.openIDConnect
    /// The access token and the refresh token.
    public let secretKinds: [SecretKey.Kind] = [.accessToken, .refreshToken]
    /// True: the tokens are refreshed, and revoked on removal.
    public let usesTokens = true

    /// The method; its settings come with each login's context.
    public init() {}

    /// Logs in with the discovery document detection found (``OpenIDConnectLogin``); the login carries the
    /// id_token's issuer and subject. Throws `AuthenticationError` (`.notOffered`) without a document, or the login's `OAuth2Error`.
    public func logIn(_ context: AuthenticationContext, interaction: any AuthenticationInteraction) async throws -> AuthenticationLogin {
        guard let configuration = context.detection.methods.first(where: { $0.identifier == identifier })?.openIDConfiguration else {
            throw AuthenticationError(.notOffered, "\(context.server) offers no OpenID Connect discovery document.")
        }
        let settings = context.settings
        var login = OpenIDConnectLogin(client: context.client, configuration: configuration, clientID: settings.oauth2ClientID)
        login.registerClient = settings.oidcRegisterClient
        login.scope = settings.oidcScope
        login.prompt = settings.oidcPrompt
        login.timeout = settings.browserTimeout
        login.redirectPort = settings.redirectPort
        login.clientSecret = settings.oauth2ClientSecret
        login.configuredClientElsewhere = settings.oauth2ClientElsewhere
        login.newTokenRetryDelays = settings.newTokenRetryDelays
        await interaction.progress(
            "Log in as \(context.user) in the browser (OpenID Connect, issuer \(configuration.issuer)); Vigil waits for it on a loopback address.")
        let result = try await login.login(user: context.user) { url in await interaction.openBrowser(url) }
        await interaction.progress("The id_token is valid: subject \(result.claims.sub), issued by \(result.claims.iss) to client \(result.clientID).")
        var done = OAuth2Authentication.login(
            result.tokens, user: context.user, server: context.server, clientID: result.clientID,
            tokenEndpoint: configuration.tokenEndpoint, revocationEndpoint: configuration.revocationEndpoint)
        done.issuer = result.claims.iss
        done.subject = result.claims.sub
        return done
    }

    /// The same Bearer access token as OAuth2.
    public func authorization(user: String, secrets: [SecretKey.Kind: Secret]) -> String? {
        OAuth2Authentication().authorization(user: user, secrets: secrets)
    }
}
