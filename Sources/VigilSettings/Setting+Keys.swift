// The typed key of every setting in the catalogue (see ``Setting``). One line per key, in the form
// `static var NAME: Self { "KEY" }`: SettingsReaderTests reads this file to check that every
// catalogue entry has a key and that every key is read somewhere.

extension Setting where Value == Bool {
    public static var cookieSupportEnabled: Self { "core.cookie-support-enabled" }
    public static var requireExplicitPolicy: Self { "connection.require-explicit-policy" }
    public static var inhibitPolicyMapping: Self { "connection.inhibit-policy-mapping" }
    public static var inhibitAnyPolicy: Self { "connection.inhibit-any-policy" }
    public static var urlEditable: Self { "bookmark.url-editable" }
    public static var openIDConnectRegistersClient: Self { "authentication-oidc.register-client" }
    public static var logPrivacyMask: Self { "log.privacy-mask" }
    public static var logHTTPRequests: Self { "log.http-requests" }
    public static var logSingleLined: Self { "log.single-lined" }
    public static var logBlankFilteredMessages: Self { "log.blank-filtered-messages" }
    public static var logColored: Self { "log.colored" }
    public static var logSynchronous: Self { "log.synchronous" }
}

extension Setting where Value == Int {
    public static var oauth2RedirectPort: Self { "authentication-oauth2.oa2-redirect-port" }
    public static var oauth2ExpirationOverrideSeconds: Self { "authentication-oauth2.oa2-expiration-override-seconds" }
    public static var logMaximumMessageSize: Self { "log.maximum-message-size" }
    public static var clientCertificateExpiryWarningDays: Self { "client-certificate.expiry-warning-days" }
    public static var simulatorPort: Self { "host-simulator.port" }
}

extension Setting where Value == String {
    public static var plainHTTPPolicy: Self { "connection.plain-http-policy" }
    public static var minimumTLSVersion: Self { "connection.minimum-tls-version" }
    public static var revocationPolicy: Self { "connection.revocation-policy" }
    public static var certificateExtendedValidationRule: Self { "connection.certificate-extended-validation-rule" }
    public static var renewedCertificateAcceptanceRule: Self { "connection.renewed-certificate-acceptance-rule" }
    public static var minimumServerVersion: Self { "connection.minimum-server-version" }
    public static var statusEndpoint: Self { "connection.endpoint-status" }
    public static var webDAVEndpoint: Self { "connection.endpoint-webdav" }
    public static var capabilitiesEndpoint: Self { "connection.endpoint-capabilities" }
    public static var userEndpoint: Self { "connection.endpoint-user" }
    public static var wellKnownPath: Self { "connection.well-known" }
    public static var defaultURL: Self { "bookmark.default-url" }
    public static var oauth2AuthorizationEndpoint: Self { "authentication-oauth2.oa2-authorization-endpoint" }
    public static var oauth2TokenEndpoint: Self { "authentication-oauth2.oa2-token-endpoint" }
    public static var oauth2ClientID: Self { "authentication-oauth2.oa2-client-id" }
    public static var oauth2ClientSecret: Self { "authentication-oauth2.oa2-client-secret" }
    public static var oauth2ClientServer: Self { "authentication-oauth2.oa2-client-server" }
    public static var openIDConnectScope: Self { "authentication-oidc.scope" }
    public static var openIDConnectPrompt: Self { "authentication-oidc.prompt" }
    public static var userAgent: Self { "http.user-agent" }
    public static var logLevel: Self { "log.level" }
    public static var logFormat: Self { "log.format" }
    public static var simulatorBind: Self { "host-simulator.bind" }
    public static var simulatorFixtures: Self { "host-simulator.fixtures" }
    public static var simulatorScenario: Self { "host-simulator.scenario" }
}

extension Setting where Value == [String] {
    public static var simulatorActiveSimulations: Self { "host-simulator.active-simulations" }
    public static var allowedAuthenticationMethods: Self { "connection.allowed-authentication-methods" }
    public static var certificatePolicies: Self { "connection.certificate-policies" }
    public static var preferredAuthenticationMethods: Self { "connection.preferred-authentication-methods" }
    public static var validatorFlags: Self { "connection.validator-flags" }
    public static var pinnedPublicKeys: Self { "connection.pinned-public-keys" }
    public static var approvedCertificates: Self { "connection.approved-certificates" }
    public static var logEnabledComponents: Self { "log.enabled-components" }
    public static var logOnlyTags: Self { "log.only-tags" }
    public static var logOmitTags: Self { "log.omit-tags" }
    public static var logOnlyMatching: Self { "log.only-matching" }
    public static var logOmitMatching: Self { "log.omit-matching" }
    public static var userSettingsAllow: Self { "user-settings.allow" }
    public static var userSettingsDisallow: Self { "user-settings.disallow" }
}
