import FoundationEssentials
import Glibc
import Logging
public import VigilAuth
public import VigilCertificates
public import VigilHTTP
import VigilLogging
public import VigilSecrets
import VigilSettings
public import VigilStore

// The options of an account setup: what the settings ask for (AccountSetup+Settings.swift maps
// them), with the settings catalogue's defaults.
extension AccountSetup {
    /// What the settings ask of an account setup, each defaulting to the settings catalogue's value.
    public struct Options: Sendable {
        /// `connection.allowed-authentication-methods`; nil allows every detected method.
        public var allowedMethods: [AuthenticationMethodIdentifier]?
        /// `connection.preferred-authentication-methods`.
        public var preferredMethods = Setting.preferredAuthenticationMethods.catalogueDefault.map(AuthenticationMethodIdentifier.init(rawValue:))
        /// Use this method (it must be detected and allowed) instead of the top-ranked one.
        public var method: AuthenticationMethodIdentifier?
        /// `connection.endpoint-status`.
        public var statusPath = Setting.statusEndpoint.catalogueDefault
        /// `connection.endpoint-capabilities` and `connection.endpoint-user`, read after the login.
        public var capabilitiesPath = Setting.capabilitiesEndpoint.catalogueDefault
        /// `connection.endpoint-user`, read after the login.
        public var userPath = Setting.userEndpoint.catalogueDefault
        /// `bookmark.default-url`: the server proposed when none is given.
        public var defaultURL: String?
        /// `bookmark.url-editable`: false locks setup to ``defaultURL``.
        public var urlEditable = Setting.urlEditable.catalogueDefault
        /// `core.cookie-support-enabled`.
        public var cookies = Setting.cookieSupportEnabled.catalogueDefault
        /// `connection.validator-flags`: `502-triggers` (a 502 is tried again too), `clear-cookies`
        /// (the cookies are forgotten before trying again).
        public var validatorFlags = Set(Setting.validatorFlags.catalogueDefault)
        /// The status.php answers tried again.
        /// The statuses a load balancer's blip answers, tried again after ``retryDelays``.
        public var retriedStatuses: Set<Int> { validatorFlags.contains("502-triggers") ? [404, 502, 503] : [404, 503] }
        /// `connection.plain-http-policy`: `warn` (an http URL may lead to its https server, the
        /// upgrade approved by the user) or `forbidden`.
        public var plainHTTPPolicy = Setting.plainHTTPPolicy.catalogueDefault
        /// `log.http-requests`: requests and answers logged, redacted (``VigilLogging/HTTPLogRedactor``).
        public var logHTTPExchanges = false
        /// `http.user-agent`, rendered.
        public var userAgent = UserAgent.render(Setting.userAgent.catalogueDefault)
        /// `connection.minimum-server-version`: status.php's `version` must be at least this.
        public var minimumServerVersion = Setting.minimumServerVersion.catalogueDefault
        /// Waits between tries of status.php when it answers 404, 502 or 503 (a load balancer
        /// that has not seen the node yet, a restart): a bounded retry, then the answer reported.
        public var retryDelays: [Duration] = [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(2)]
        /// Waits between tries when a request with a token the provider just issued is answered 401
        /// (a cluster whose nodes learn new tokens late). A password is never retried.
        public var newTokenRetryDelays: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600)]
        /// The WebDAV root and the well-known path the authentication methods are detected at.
        public var paths = AuthenticationDetector.Paths(
            webDAV: Setting.webDAVEndpoint.catalogueDefault, wellKnown: Setting.wellKnownPath.catalogueDefault)
        /// The HTTP client's timeout for each request (30 seconds).
        public var timeout: Duration = .seconds(30)
        /// `authentication-oauth2.oa2-client-id`: needed for OAuth2.
        public var oauth2ClientID: String?
        /// `authentication-oauth2.oa2-authorization-endpoint` and `oa2-token-endpoint`, relative to the server.
        public var oauth2AuthorizationPath = Setting.oauth2AuthorizationEndpoint.catalogueDefault
        /// `authentication-oauth2.oa2-token-endpoint`, relative to the server.
        public var oauth2TokenPath = Setting.oauth2TokenEndpoint.catalogueDefault
        /// `authentication-oauth2.oa2-redirect-port`; 0 picks a free one.
        public var oauth2RedirectPort = Setting.oauth2RedirectPort.catalogueDefault
        /// `authentication-oauth2.oa2-client-secret`, for a confidential client.
        public var oauth2ClientSecret: Secret?
        /// `authentication-oauth2.oa2-client-server`: where the configured client is registered
        /// (unset: ``defaultURL``); see ``oauth2Client(for:)``.
        public var oauth2ClientServer: String?
        /// `authentication-oauth2.oa2-expiration-override-seconds`.
        public var tokenLifetimeOverride: Int?
        /// `authentication-oidc.scope`, `.prompt` and `.register-client`.
        public var oidcScope = Setting.openIDConnectScope.catalogueDefault
        /// `authentication-oidc.prompt`; nil: no `prompt` parameter.
        public var oidcPrompt: String? = Setting.openIDConnectPrompt.defaultValue
        /// `authentication-oidc.register-client`.
        public var oidcRegisterClient = Setting.openIDConnectRegistersClient.catalogueDefault
        /// How long the user has to finish in the browser.
        public var browserTimeout: Duration = .seconds(300)
        /// Names pinned to addresses (curl's `--resolve`), for every connection of the setup.
        public var resolve: [HostResolution] = []
        /// `connection.minimum-tls-version` and `connection.pinned-public-keys`: a server below
        /// the one or without the other is refused, never offered for approval.
        public var requirements = ConnectionRequirements()
        /// `connection.approved-certificates`: leaves the administrator approved in advance.
        public var preApproved = PreApprovedCertificates()
        /// Mutual TLS: the client certificate the account presents, to ``credentialsOrigin`` only:
        /// never to a login provider on another host, nor to a redirect target the user did not
        /// agree to present it to.
        public var clientIdentity: ClientIdentity?
        /// An access proxy's service token (Cloudflare Access and the like), sent with every request
        /// to ``credentialsOrigin`` and nowhere else: not to a redirect target on another
        /// origin the user did not agree to, a login provider or a proxy.
        public var accessHeaders: AccessHeaders?
        /// A password is given in advance (`--password-stdin`): setup is for Basic, and fails at
        /// once, naming what the server offers, rather than wait for a browser.
        public var passwordGiven = false
        /// The CA certificates (PEM) setup was told to trust (`--ca-file`), kept with the account so
        /// that every later command judges its server as setup did; nil: the system store.
        public var trustAnchorsPEM: String?
        /// Where the client certificate and the access headers go: the server the user named them
        /// for (nil: nowhere). Setup moves it to a redirect's target only when the user agrees
        /// (``AccountSetupInteraction/presentCredentials(_:givenFor:to:)``).
        public var credentialsOrigin: Endpoint?
        /// Which proxy (`connection.proxy`, `connection.proxy-autoconfig-url`, the environment), and
        /// the credentials kept for proxies.
        public var proxy = ProxyConfiguration()
        /// The settings catalogue's defaults.
        public init() {}

        /// The HTTP client's configuration these options ask for (a fresh cookie jar each time).
        public var clientConfiguration: HTTPClient.Configuration {
            var configuration = HTTPClient.Configuration()
            configuration.timeout = timeout
            configuration.resolve = resolve
            configuration.minimumTLSVersion = requirements.minimumTLSVersion
            configuration.userAgent = userAgent
            configuration.logExchanges = logHTTPExchanges
            configuration.cookies = cookies ? CookieJar() : nil
            configuration.proxy = proxy
            return configuration
        }

        /// The configured OAuth2 client (id, and secret when confidential) for `server`: only on
        /// the server it is registered on (`oa2-client-server`, else `bookmark.default-url`);
        /// nil anywhere else, so that an organisation's client secret never reaches another server.
        public func oauth2Client(for server: String) -> (id: String, secret: Secret?)? {
            guard let id = oauth2ClientID, !id.isEmpty, let home = oauth2ClientServer ?? defaultURL,
                AccountSetup.normalized(home) == AccountSetup.normalized(server)
            else { return nil }
            return (id, oauth2ClientSecret)
        }

        /// The secret to authenticate an account's token requests with: the configured one only
        /// for the configured client on its own server; none for a client registered dynamically.
        public func oauth2ClientSecret(for account: Account) -> Secret? {
            guard let client = oauth2Client(for: account.server), client.id == account.clientID else { return nil }
            return client.secret
        }

        /// What the methods read, for `server`.
        public func authentication(for server: String) -> AuthenticationSettings {
            var settings = AuthenticationSettings()
            let client = oauth2Client(for: server)
            settings.oauth2ClientID = client?.id
            settings.oauth2ClientSecret = client?.secret
            if client == nil, let id = oauth2ClientID, !id.isEmpty, let home = oauth2ClientServer ?? defaultURL {
                settings.oauth2ClientElsewhere = (home, oauth2ClientServer != nil ? "authentication-oauth2.oa2-client-server" : "bookmark.default-url")
            }
            settings.oauth2AuthorizationPath = oauth2AuthorizationPath
            settings.oauth2TokenPath = oauth2TokenPath
            settings.redirectPort = oauth2RedirectPort
            settings.browserTimeout = browserTimeout
            settings.oidcScope = oidcScope
            settings.oidcPrompt = oidcPrompt
            settings.oidcRegisterClient = oidcRegisterClient
            settings.newTokenRetryDelays = newTokenRetryDelays
            return settings
        }
    }
}
