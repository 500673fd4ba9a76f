public import Logging
import VigilAuth
public import VigilCertificates
public import VigilHTTP
import VigilRules
import VigilSecrets
public import VigilSettings
public import VigilStore

extension AccountSetup.Options {
    /// The options the settings ask for (`connection.*`, `authentication-oauth2.*`): the one mapping
    /// shared by `vigil account add` and `vigil simulate`, so that both drive the same setup.
    public init(settings: Settings) {
        self.init()
        allowedMethods = settings[.allowedAuthenticationMethods]?.map(AuthenticationMethodIdentifier.init(rawValue:))
        if let preferred = settings[.preferredAuthenticationMethods] {
            preferredMethods = preferred.map(AuthenticationMethodIdentifier.init(rawValue:))
        }
        statusPath = settings[.statusEndpoint] ?? statusPath
        minimumServerVersion = settings[.minimumServerVersion] ?? minimumServerVersion
        if let template = settings[.userAgent] { userAgent = UserAgent.render(template) }
        logHTTPExchanges = settings.logsHTTPExchanges
        cookies = settings[.cookieSupportEnabled] ?? true
        validatorFlags = Set(settings[.validatorFlags] ?? Array(validatorFlags))
        plainHTTPPolicy = settings[.plainHTTPPolicy] ?? plainHTTPPolicy
        defaultURL = settings[.defaultURL]
        capabilitiesPath = settings[.capabilitiesEndpoint] ?? capabilitiesPath
        userPath = settings[.userEndpoint] ?? userPath
        urlEditable = settings[.urlEditable] ?? true
        paths.webDAV = settings[.webDAVEndpoint] ?? paths.webDAV
        paths.wellKnown = settings[.wellKnownPath] ?? paths.wellKnown
        oauth2ClientID = settings[.oauth2ClientID]
        oauth2AuthorizationPath = settings[.oauth2AuthorizationEndpoint] ?? oauth2AuthorizationPath
        oauth2TokenPath = settings[.oauth2TokenEndpoint] ?? oauth2TokenPath
        oauth2RedirectPort = settings[.oauth2RedirectPort] ?? 0
        browserTimeout = .seconds(settings[.browserTimeoutSeconds] ?? 300)
        oauth2ClientSecret = settings[.oauth2ClientSecret].map(Secret.init)
        oauth2ClientServer = settings[.oauth2ClientServer]
        tokenLifetimeOverride = settings[.oauth2ExpirationOverrideSeconds]
        oidcScope = settings[.openIDConnectScope] ?? oidcScope
        oidcPrompt = settings[.openIDConnectPrompt] ?? oidcPrompt
        oidcRegisterClient = settings[.openIDConnectRegistersClient] ?? oidcRegisterClient
        requirements = ConnectionRequirements(settings: settings)
        preApproved = PreApprovedCertificates(settingValues: settings[.approvedCertificates] ?? [])
        proxy = ProxyConfiguration(settings: settings)
    }
}

extension ProxyConfiguration {
    /// `connection.proxy` and `connection.proxy-autoconfig-url`, with the passwords kept in the
    /// keyring (`vigil proxy login`; `credentials`: another store, for tests and the suite).
    public init(settings: Settings) {
        self.init(settings: settings, credentials: ProxyCredentials(secrets: KeyringSecretStore()))
    }

    /// The same with the credentials kept in `credentials` (nil: none).
    public init(settings: Settings, credentials: ProxyCredentials?) {
        self.init()
        switch settings[.proxy] ?? "system" {
        case "system": mode = .system
        case "none": mode = .none
        case let url: mode = .url(url)
        }
        autoconfigURL = settings[.proxyAutoconfigURL]
        self.credentials = credentials?.lookup
    }
}

extension ConnectionRequirements {
    /// `connection.minimum-tls-version`, `connection.pinned-public-keys`,
    /// `connection.revocation-policy` and `connection.locally-added-roots`, for every command that
    /// judges a live handshake.
    public init(settings: Settings) {
        self.init(
            minimumTLSVersion: settings[.minimumTLSVersion].flatMap(TLSProtocolVersion.init(rawValue:)) ?? .tls12,
            pins: PublicKeyPins(settingValues: settings[.pinnedPublicKeys] ?? []),
            revocation: RevocationChecker(policy: settings[.revocationPolicy].flatMap(RevocationPolicy.init(rawValue:)) ?? .softFail))
        locallyAddedRoots = settings[.locallyAddedRoots].flatMap(LocallyAddedRoots.init(rawValue:)) ?? .trust
        revocation.proxy = ProxyConfiguration(settings: settings)
    }
}

extension TrustEvaluator.Configuration {
    /// RFC 5280's policy inputs from the settings (`connection.certificate-policies`,
    /// `connection.require-explicit-policy`, `connection.inhibit-policy-mapping`,
    /// `connection.inhibit-any-policy`): the one mapping every command's evaluator uses.
    public mutating func applyPolicyInputs(from settings: Settings) {
        if let policies = settings[.certificatePolicies], !policies.isEmpty { initialPolicies = policies }
        requireExplicitPolicy = settings[.requireExplicitPolicy] ?? false
        inhibitPolicyMapping = settings[.inhibitPolicyMapping] ?? false
        inhibitAnyPolicy = settings[.inhibitAnyPolicy] ?? false
    }
}

extension TrustEvaluator {
    /// The evaluator a command's `--ca-file` options ask for (only those CAs, or the system store),
    /// with the settings' policy inputs.
    public init(caFilesOrSystem caFiles: [String], settings: Settings) throws {
        var configuration = caFiles.isEmpty ? Configuration.system : .caFiles(caFiles)
        configuration.applyPolicyInputs(from: settings)
        try self.init(configuration: configuration)
    }
}

extension AccountCheck {
    /// An account check with the options and rules the settings ask for
    /// (`connection.renewed-certificate-acceptance-rule`, `connection.certificate-extended-validation-rule`):
    /// the one mapping shared by `vigil account check` and `vigil simulate`.
    public init(evaluator: TrustEvaluator, database: VigilDatabase, settings: Settings, logger: Logger) {
        func rule(_ key: Setting<String>) -> (text: String, rule: CertificateRule)? {
            guard let text = settings[key], let rule = try? CertificateRule(parsing: text) else { return nil }
            return (text, rule)
        }
        self.init(
            evaluator: evaluator, approvals: CertificateApprovals(database: database), accounts: Accounts(database: database),
            options: AccountSetup.Options(settings: settings), renewalRule: rule(.renewedCertificateAcceptanceRule),
            extendedValidationRule: rule(.certificateExtendedValidationRule), logger: logger)
    }
}
