import VigilAuth
public import Logging
public import VigilCertificates
import VigilRules
import VigilSecrets
public import VigilStore
public import VigilHTTP
public import VigilSettings

extension AccountSetup.Options {
    /// The options the settings ask for (`connection.*`, `authentication-oauth2.*`): the one mapping
    /// shared by `vigil account add` and `vigil simulate`, so that both drive the same setup.
    public init(settings: Settings) {
        self.init()
        allowedMethods = settings.strings("connection.allowed-authentication-methods")?.map(AuthenticationMethodIdentifier.init(rawValue:))
        if let preferred = settings.strings("connection.preferred-authentication-methods") {
            preferredMethods = preferred.map(AuthenticationMethodIdentifier.init(rawValue:))
        }
        statusPath = settings.string("connection.endpoint-status") ?? statusPath
        minimumServerVersion = settings.string("connection.minimum-server-version") ?? minimumServerVersion
        if let template = settings.string("http.user-agent") { userAgent = UserAgent.render(template) }
        logHTTPExchanges = settings.bool("log.http-requests") ?? false
        cookies = settings.bool("core.cookie-support-enabled") ?? true
        plainHTTPPolicy = settings.string("connection.plain-http-policy") ?? plainHTTPPolicy
        defaultURL = settings.string("bookmark.default-url")
        capabilitiesPath = settings.string("connection.endpoint-capabilities") ?? capabilitiesPath
        userPath = settings.string("connection.endpoint-user") ?? userPath
        urlEditable = settings.bool("bookmark.url-editable") ?? true
        paths.webDAV = settings.string("connection.endpoint-webdav") ?? paths.webDAV
        paths.wellKnown = settings.string("connection.well-known") ?? paths.wellKnown
        oauth2ClientID = settings.string("authentication-oauth2.oa2-client-id")
        oauth2AuthorizationPath = settings.string("authentication-oauth2.oa2-authorization-endpoint") ?? oauth2AuthorizationPath
        oauth2TokenPath = settings.string("authentication-oauth2.oa2-token-endpoint") ?? oauth2TokenPath
        oauth2RedirectPort = settings.integer("authentication-oauth2.oa2-redirect-port") ?? 0
        oauth2ClientSecret = settings.string("authentication-oauth2.oa2-client-secret").map(Secret.init)
        tokenLifetimeOverride = settings.integer("authentication-oauth2.oa2-expiration-override-seconds")
        oidcScope = settings.string("authentication-oidc.scope") ?? oidcScope
        oidcPrompt = settings.string("authentication-oidc.prompt") ?? oidcPrompt
        oidcRegisterClient = settings.bool("authentication-oidc.register-client") ?? oidcRegisterClient
        requirements = ConnectionRequirements(settings: settings)
        preApproved = PreApprovedCertificates(settingValues: settings.strings("connection.approved-certificates") ?? [])
    }
}

extension ConnectionRequirements {
    /// `connection.minimum-tls-version` and `connection.pinned-public-keys`, for every command that
    /// judges a live handshake.
    public init(settings: Settings) {
        self.init(minimumTLSVersion: settings.string("connection.minimum-tls-version").flatMap(TLSProtocolVersion.init(name:)) ?? .tls12,
                  pins: PublicKeyPins(settingValues: settings.strings("connection.pinned-public-keys") ?? []))
    }
}

extension AccountCheck {
    /// An account check with the options and rules the settings ask for
    /// (`connection.renewed-certificate-acceptance-rule`, `connection.certificate-extended-validation-rule`):
    /// the one mapping shared by `vigil account check` and `vigil simulate`.
    public init(evaluator: TrustEvaluator, database: VigilDatabase, settings: Settings, logger: Logger) {
        func rule(_ key: String) -> (text: String, rule: CertificateRule)? {
            guard let text = settings.string(key), let rule = try? CertificateRule(parsing: text) else { return nil }
            return (text, rule)
        }
        self.init(evaluator: evaluator, approvals: CertificateApprovals(database: database), accounts: Accounts(database: database),
                  options: AccountSetup.Options(settings: settings), renewalRule: rule("connection.renewed-certificate-acceptance-rule"),
                  extendedValidationRule: rule("connection.certificate-extended-validation-rule"), logger: logger)
    }
}
