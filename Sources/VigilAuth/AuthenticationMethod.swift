public import VigilHTTP
public import VigilSecrets

/// The settings a method may read (`authentication-oauth2.*`, `authentication-oidc.*`).
public struct AuthenticationSettings: Sendable {
    public var oauth2ClientID: String?
    public var oauth2ClientSecret: Secret?
    public var oauth2AuthorizationPath = "index.php/apps/oauth2/authorize"
    public var oauth2TokenPath = "index.php/apps/oauth2/api/v1/token"
    public var redirectPort = 0
    public var browserTimeout: Duration = .seconds(300)
    public var oidcScope = "openid offline_access email profile"
    public var oidcPrompt: String? = "select_account consent"
    public var oidcRegisterClient = true
    /// Waits between tries when a token just issued is answered 401 (bounded).
    public var newTokenRetryDelays: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600)]
    public init() {}
}

/// What a method logs in with: the server (its certificate already reviewed), the user, the
/// trust-gated client, what detection found, and the settings.
public struct AuthenticationContext: Sendable {
    public var server: String
    public var user: String
    public var client: HTTPClient
    public var detection: AuthenticationDetection
    public var settings: AuthenticationSettings

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
    public var secrets: [SecretKey.Kind: Secret]
    /// The `Authorization` header value to check on the files root before anything is kept.
    public var authorization: Secret
    /// What to tell the user when the files root refuses it.
    public var refusal: String
    public var clientID: String?
    public var tokenEndpoint: String?
    public var revocationEndpoint: String?
    /// Seconds the access token lives, as the server said.
    public var expiresIn: Int?
    /// OpenID Connect: the provider and its `sub`, the user's stable identity there (every later
    /// login must match it); nil for other methods.
    public var issuer: String?
    public var subject: String?

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
    public func isOffered(by detection: AuthenticationDetection) -> Bool {
        detection.methods.contains { $0.identifier == identifier }
    }
}

/// The methods setup can use, by identifier.
public struct AuthenticationMethods: Sendable {
    public private(set) var methods: [AuthenticationMethodIdentifier: any AuthenticationMethod] = [:]

    public init(_ methods: [any AuthenticationMethod]) {
        for method in methods { register(method) }
    }

    /// Basic, OAuth2 and OpenID Connect.
    public static let standard = AuthenticationMethods([BasicAuthentication(), OAuth2Authentication(), OpenIDConnectAuthentication()])

    public mutating func register(_ method: any AuthenticationMethod) { methods[method.identifier] = method }

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
