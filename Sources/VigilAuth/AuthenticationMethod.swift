public import VigilHTTP
public import VigilSecrets

/// The settings a method may read (`authentication-oauth2.*`, `authentication-oidc.*`).
public struct AuthenticationSettings: Sendable {
    /// The OAuth2 client configured for this server (`authentication-oauth2.oa2-client-id`); nil: none.
    public var oauth2ClientID: String?
    /// The configured client's secret (`authentication-oauth2.oa2-client-secret`); nil: a public client.
    public var oauth2ClientSecret: Secret?
    /// A client is configured (`authentication-oauth2.oa2-client-id`) but bound to another server:
    /// that server, and the setting that binds it; nil otherwise. Only for errors that say so.
    public var oauth2ClientElsewhere: (server: String, setting: String)?
    /// The OAuth2 authorization endpoint, relative to the server URL.
    public var oauth2AuthorizationPath = "index.php/apps/oauth2/authorize"
    /// The OAuth2 token endpoint, relative to the server URL.
    public var oauth2TokenPath = "index.php/apps/oauth2/api/v1/token"
    /// The loopback redirect's port (`authentication-oauth2.oa2-redirect-port`); 0 picks a free one.
    public var redirectPort = 0
    /// How long the user has to finish a login in the browser.
    public var browserTimeout: Duration = .seconds(300)
    /// The scopes requested from an OpenID Connect provider (`authentication-oidc.scope`).
    public var oidcScope = "openid offline_access email profile"
    /// The OpenID Connect `prompt` parameter (`authentication-oidc.prompt`); nil or empty: none is sent.
    public var oidcPrompt: String? = "select_account consent"
    /// Whether OpenID Connect registers a client (RFC 7591) when the provider offers registration.
    public var oidcRegisterClient = true
    /// Waits between tries when a token just issued is answered 401 (bounded).
    public var newTokenRetryDelays: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600)]
    /// The defaults: no client configured, the ownCloud OAuth2 app's paths, a free port, five minutes in the browser.
    public init() {}
}

/// What a method logs in with: the server (its certificate already reviewed), the user, the
/// trust-gated client, what detection found, and the settings.
public struct AuthenticationContext: Sendable {
    /// The server URL; endpoint paths are appended to it after a slash.
    public var server: String
    /// The user name being added, as the user gave it.
    public var user: String
    /// The trust-gated HTTP client the login's requests go through.
    public var client: HTTPClient
    /// What detection found on the server (OpenID Connect's discovery document among it).
    public var detection: AuthenticationDetection
    /// The method settings.
    public var settings: AuthenticationSettings

    /// A context from its parts.
    public init(server: String, user: String, client: HTTPClient, detection: AuthenticationDetection, settings: AuthenticationSettings) {
        self.server = server
        self.user = user
        self.client = client
        self.detection = detection
        self.settings = settings
    }
}

/// What a completed login gives: the secrets for the keyring, the `Authorization` value that
/// proves them on the user's files, and what a token method needs later (never a secret).
public struct AuthenticationLogin: Sendable {
    /// The secrets to keep in the keyring, by kind.
    public var secrets: [SecretKey.Kind: Secret]
    /// The `Authorization` header value to check on the files root before anything is kept.
    public var authorization: Secret
    /// What to tell the user when the files root refuses it.
    public var refusal: String
    /// The OAuth2 client the tokens were issued to; nil for Basic.
    public var clientID: String?
    /// Where the tokens are refreshed; nil for Basic.
    public var tokenEndpoint: String?
    /// Where tokens are revoked (RFC 7009); nil when there is none (Basic, OAuth2, a provider without one).
    public var revocationEndpoint: String?
    /// Seconds the access token lives, as the server said.
    public var expiresIn: Int?
    /// OpenID Connect: the provider and its `sub`, the user's stable identity there (every later
    /// login must match it); nil for other methods.
    public var issuer: String?
    /// OpenID Connect: the user's `sub` at ``issuer``; nil for other methods.
    public var subject: String?

    /// A login without an issuer or subject (OpenID Connect sets them afterwards).
    public init(
        secrets: [SecretKey.Kind: Secret], authorization: Secret, refusal: String, clientID: String? = nil,
        tokenEndpoint: String? = nil, revocationEndpoint: String? = nil, expiresIn: Int? = nil
    ) {
        self.secrets = secrets
        self.authorization = authorization
        self.refusal = refusal
        self.clientID = clientID
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.expiresIn = expiresIn
    }
}

/// One authentication method (the seeds' "one class each ... extensibility"): how it is detected,
/// how it logs in through an interaction, the secrets it keeps, and how a request is authorized
/// with them. Token methods share ``OAuth2TokenClient`` for refresh and revocation. Account setup
/// picks a method from an ``AuthenticationMethods`` registry: a new method is a new type there,
/// not a new branch in setup.
public protocol AuthenticationMethod: Sendable {
    /// The method's identifier, under which it is registered, allowed and preferred.
    var identifier: AuthenticationMethodIdentifier { get }
    /// The kinds of secret an account of this method keeps in the keyring.
    var secretKinds: [SecretKey.Kind] { get }
    /// Whether it authorizes with expiring tokens (refreshed, revoked on removal).
    var usesTokens: Bool { get }
    /// Whether the server offers it, from what detection saw.
    func isOffered(by detection: AuthenticationDetection) -> Bool
    /// Logs in; nothing is kept here (setup checks ``AuthenticationLogin/authorization`` first).
    func logIn(_ context: AuthenticationContext, interaction: any AuthenticationInteraction) async throws -> AuthenticationLogin
    /// The `Authorization` value from stored secrets; nil when they are missing. Token methods
    /// answer with the access token as it is stored (``usesTokens``: refresh first).
    func authorization(user: String, secrets: [SecretKey.Kind: Secret]) -> String?
}

extension AuthenticationMethod {
    /// True when detection named this method's identifier.
    public func isOffered(by detection: AuthenticationDetection) -> Bool {
        detection.methods.contains { $0.identifier == identifier }
    }
}

/// The methods setup can use, by identifier.
public struct AuthenticationMethods: Sendable {
    /// The registered methods, by identifier.
    public private(set) var methods: [AuthenticationMethodIdentifier: any AuthenticationMethod] = [:]

    /// A registry of `methods`; a later method replaces an earlier one with the same identifier.
    public init(_ methods: [any AuthenticationMethod]) {
        for method in methods { register(method) }
    }

    /// Basic, OAuth2, OpenID Connect and Nextcloud's Login Flow v2.
    public static let standard = AuthenticationMethods([
        BasicAuthentication(), OAuth2Authentication(), OpenIDConnectAuthentication(), LoginFlowV2Authentication(),
    ])

    /// Adds `method`, replacing any method registered under its identifier.
    public mutating func register(_ method: any AuthenticationMethod) { methods[method.identifier] = method }

    /// The method registered under `identifier`, or nil.
    public func method(_ identifier: AuthenticationMethodIdentifier) -> (any AuthenticationMethod)? { methods[identifier] }

    /// The registered methods the server offers: those detection named, in its order, then any
    /// other registered method that finds itself offered (a plug-in's own ``AuthenticationMethod/isOffered(by:)``).
    public func offered(by detection: AuthenticationDetection) -> [AuthenticationMethodIdentifier] {
        let named = detection.methods.map(\.identifier).filter { methods[$0]?.isOffered(by: detection) ?? false }
        let others = methods.values.filter { !named.contains($0.identifier) && $0.isOffered(by: detection) }.map(\.identifier).sorted {
            $0.rawValue < $1.rawValue
        }
        return named + others
    }
}
