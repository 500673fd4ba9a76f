// The typed key of every setting in the catalogue (see ``Setting``). One line per key, in the form
// `static var NAME: Self { "KEY" }`: SettingsReaderTests reads this file to check that every
// catalogue entry has a key and that every key is read somewhere.

extension Setting where Value == Bool {
    /// `server-check.daily`: the daily check also checks every account's server, journalling new findings.
    public static var serverCheckDaily: Self { "server-check.daily" }
    /// `core.cookie-support-enabled`: keep cookies per account, in memory only.
    public static var cookieSupportEnabled: Self { "core.cookie-support-enabled" }
    /// `connection.require-explicit-policy`: RFC 5280's initial-explicit-policy.
    public static var requireExplicitPolicy: Self { "connection.require-explicit-policy" }
    /// `connection.inhibit-policy-mapping`: RFC 5280's initial-policy-mapping-inhibit.
    public static var inhibitPolicyMapping: Self { "connection.inhibit-policy-mapping" }
    /// `connection.inhibit-any-policy`: RFC 5280's initial-any-policy-inhibit.
    public static var inhibitAnyPolicy: Self { "connection.inhibit-any-policy" }
    /// `bookmark.url-editable`: whether the user may change the proposed server URL.
    public static var urlEditable: Self { "bookmark.url-editable" }
    /// `authentication-oidc.register-client`: register a client dynamically (RFC 7591) when the provider supports it.
    public static var openIDConnectRegistersClient: Self { "authentication-oidc.register-client" }
    /// `log.privacy-mask`: mask private values before a log line is written.
    public static var logPrivacyMask: Self { "log.privacy-mask" }
    /// `log.http-requests`: log HTTP requests and responses, secrets redacted.
    public static var logHTTPRequests: Self { "log.http-requests" }
    /// `log.single-lined`: write a multi-line message as one line each, with the full lead-in.
    public static var logSingleLined: Self { "log.single-lined" }
    /// `log.blank-filtered-messages`: write messages the filters leave out as `-`, without metadata.
    public static var logBlankFilteredMessages: Self { "log.blank-filtered-messages" }
    /// `log.colored`: show the level of a text log line as a coloured mark.
    public static var logColored: Self { "log.colored" }
    /// `log.synchronous`: each line of the log file reaches the disk (fdatasync) before Vigil goes on.
    public static var logSynchronous: Self { "log.synchronous" }
}

extension Setting where Value == Int {
    /// `server-check.connections-at-once`: connections `server check` keeps open at once.
    public static var serverCheckConnectionsAtOnce: Self { "server-check.connections-at-once" }
    /// `server-check.connections-per-second`: connections `server check` starts per second at most.
    public static var serverCheckConnectionsPerSecond: Self { "server-check.connections-per-second" }
    /// `authentication.browser-timeout-seconds`: how long a browser login is waited for.
    public static var browserTimeoutSeconds: Self { "authentication.browser-timeout-seconds" }
    /// `authentication-oauth2.oa2-redirect-port`: the loopback redirect URI's port; 0 picks a free one per login.
    public static var oauth2RedirectPort: Self { "authentication-oauth2.oa2-redirect-port" }
    /// `authentication-oauth2.oa2-expiration-override-seconds`: treat access tokens as expiring after this many seconds.
    public static var oauth2ExpirationOverrideSeconds: Self { "authentication-oauth2.oa2-expiration-override-seconds" }
    /// `log.maximum-message-size`: longer messages are truncated, in bytes; 0 means no limit.
    public static var logMaximumMessageSize: Self { "log.maximum-message-size" }
    /// `client-certificate.expiry-warning-days`: warn when a client certificate expires within this many days.
    public static var clientCertificateExpiryWarningDays: Self { "client-certificate.expiry-warning-days" }
    /// `host-simulator.port`: the simulator's HTTPS port (plain HTTP takes the next one); 0 picks free ports.
    public static var simulatorPort: Self { "host-simulator.port" }
}

extension Setting where Value == String {
    /// `connection.plain-http-policy`: `warn` or `forbidden`, for plain http URLs.
    public static var plainHTTPPolicy: Self { "connection.plain-http-policy" }
    /// `connection.minimum-tls-version`: `1.2` or `1.3`, for connections that carry credentials.
    public static var minimumTLSVersion: Self { "connection.minimum-tls-version" }
    /// `connection.revocation-policy`: `off`, `soft-fail` or `hard-fail`.
    public static var revocationPolicy: Self { "connection.revocation-policy" }
    /// `connection.locally-added-roots`: `trust`, `ask` or `refuse`, for chains that end in a root
    /// added to this machine's trust store (not a public root).
    public static var locallyAddedRoots: Self { "connection.locally-added-roots" }
    /// `connection.proxy`: `system`, `none`, or a proxy URL.
    public static var proxy: Self { "connection.proxy" }
    /// `connection.proxy-autoconfig-url`: a PAC file (`http://`, `https://`, `file://`).
    public static var proxyAutoconfigURL: Self { "connection.proxy-autoconfig-url" }
    /// `connection.certificate-extended-validation-rule`: a rule every server certificate must also pass.
    public static var certificateExtendedValidationRule: Self { "connection.certificate-extended-validation-rule" }
    /// `connection.renewed-certificate-acceptance-rule`: when an approved server's changed certificate is accepted unasked.
    public static var renewedCertificateAcceptanceRule: Self { "connection.renewed-certificate-acceptance-rule" }
    /// `connection.minimum-server-version`: the oldest server version (status.php's `version`) account setup accepts.
    public static var minimumServerVersion: Self { "connection.minimum-server-version" }
    /// `connection.endpoint-status`: path of the status endpoint.
    public static var statusEndpoint: Self { "connection.endpoint-status" }
    /// `connection.endpoint-webdav`: path of the WebDAV endpoint.
    public static var webDAVEndpoint: Self { "connection.endpoint-webdav" }
    /// `connection.endpoint-capabilities`: path of the capabilities endpoint.
    public static var capabilitiesEndpoint: Self { "connection.endpoint-capabilities" }
    /// `connection.endpoint-user`: path of the endpoint describing the logged-in user.
    public static var userEndpoint: Self { "connection.endpoint-user" }
    /// `connection.well-known`: path of the .well-known directory.
    public static var wellKnownPath: Self { "connection.well-known" }
    /// `bookmark.default-url`: the server URL proposed when adding an account.
    public static var defaultURL: Self { "bookmark.default-url" }
    /// `authentication-oauth2.oa2-authorization-endpoint`: relative to the server URL.
    public static var oauth2AuthorizationEndpoint: Self { "authentication-oauth2.oa2-authorization-endpoint" }
    /// `authentication-oauth2.oa2-token-endpoint`: relative to the server URL.
    public static var oauth2TokenEndpoint: Self { "authentication-oauth2.oa2-token-endpoint" }
    /// `authentication-oauth2.oa2-client-id`: the OAuth2 client id registered for Vigil on the server.
    public static var oauth2ClientID: Self { "authentication-oauth2.oa2-client-id" }
    /// `authentication-oauth2.oa2-client-secret`: the OAuth2 client secret, for a confidential client.
    public static var oauth2ClientSecret: Self { "authentication-oauth2.oa2-client-secret" }
    /// `authentication-oauth2.oa2-client-server`: the one server the configured OAuth2 client is used on.
    public static var oauth2ClientServer: Self { "authentication-oauth2.oa2-client-server" }
    /// `authentication-oidc.scope`: the scopes requested from the OpenID Connect provider.
    public static var openIDConnectScope: Self { "authentication-oidc.scope" }
    /// `authentication-oidc.prompt`: the prompt parameter of the authorization request.
    public static var openIDConnectPrompt: Self { "authentication-oidc.prompt" }
    /// `http.user-agent`: the User-Agent header, a template with `{{placeholders}}`.
    public static var userAgent: Self { "http.user-agent" }
    /// `log.level`: the lowest level logged; `off` logs nothing.
    public static var logLevel: Self { "log.level" }
    /// `log.format`: `text`, `json` or `json-composed`.
    public static var logFormat: Self { "log.format" }
    /// `host-simulator.bind`: the address the simulator binds (loopback only).
    public static var simulatorBind: Self { "host-simulator.bind" }
    /// `host-simulator.fixtures`: the directory of scenario fixtures.
    public static var simulatorFixtures: Self { "host-simulator.fixtures" }
    /// `host-simulator.scenario`: the scenario played when none is named.
    public static var simulatorScenario: Self { "host-simulator.scenario" }
}

extension Setting where Value == [String] {
    /// `host-simulator.active-simulations`: the scenarios played at once when none is named.
    public static var simulatorActiveSimulations: Self { "host-simulator.active-simulations" }
    /// `connection.allowed-authentication-methods`: the methods that may be used; nil: all the server offers.
    public static var allowedAuthenticationMethods: Self { "connection.allowed-authentication-methods" }
    /// `connection.certificate-policies`: RFC 5280's initial policy set, as dotted OIDs.
    public static var certificatePolicies: Self { "connection.certificate-policies" }
    /// `connection.preferred-authentication-methods`: the methods, most preferred first.
    public static var preferredAuthenticationMethods: Self { "connection.preferred-authentication-methods" }
    /// `connection.validator-flags`: how status.php is validated again when it does not answer.
    public static var validatorFlags: Self { "connection.validator-flags" }
    /// `connection.pinned-public-keys`: `HOST[:PORT]=PIN` public keys a host's chain must contain.
    public static var pinnedPublicKeys: Self { "connection.pinned-public-keys" }
    /// `connection.approved-certificates`: `HOST[:PORT]=SHA256` leaf certificates approved in advance.
    public static var approvedCertificates: Self { "connection.approved-certificates" }
    /// `log.enabled-components`: the log writers on, and HTTP exchange logging.
    public static var logEnabledComponents: Self { "log.enabled-components" }
    /// `log.only-tags`: only messages with one of these tags are logged.
    public static var logOnlyTags: Self { "log.only-tags" }
    /// `log.omit-tags`: messages with any of these tags are omitted.
    public static var logOmitTags: Self { "log.omit-tags" }
    /// `log.only-matching`: only messages containing one of these terms are logged.
    public static var logOnlyMatching: Self { "log.only-matching" }
    /// `log.omit-matching`: messages containing any of these terms are omitted.
    public static var logOmitMatching: Self { "log.omit-matching" }
    /// `user-settings.allow` (managed only): the only keys the user file may set.
    public static var userSettingsAllow: Self { "user-settings.allow" }
    /// `user-settings.disallow` (managed only): keys the user file may not set.
    public static var userSettingsDisallow: Self { "user-settings.disallow" }
}
