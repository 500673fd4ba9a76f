import Foundation
public import Logging
public import VigilAuth
public import VigilCertificates
public import VigilHTTP
import VigilLogging
public import VigilSecrets
public import VigilStore

/// Adds an account the way the ownCloud security guide asks, on Linux:
/// 1. a TLS handshake, and the chain's summary and verdict shown to the user before anything
///    else; an untrusted chain must be approved (stored, audited) or setup stops, no request sent;
/// 2. `status.php` through ``VigilHTTP/HTTPClient`` (the approved leaf is the only exception the
///    trust policy makes; a certificate changed since the review is refused in the handshake);
/// 3. authentication methods detected without credentials, filtered and ranked by the settings;
/// 4. a redirect of `status.php` to another server's `status.php` is reported for approval; approved,
///    setup starts again there (that server's certificate reviewed in turn, nothing carried over;
///    at most ten hops; a downgrade to http is never offered). Any other redirect stops setup;
/// 5. Basic authentication: the password is asked only now, checked with a `PROPFIND`, and kept
///    in the keyring; or OAuth2 / OpenID Connect: the browser, a loopback redirect and PKCE (and
///    for OpenID Connect a registered client, `nonce`, the `iss` of the answer and a validated
///    id_token), the access token checked the same way, both tokens kept in the keyring. The
///    account (never a secret) goes to the database. An unsafe OpenID Connect discovery document
///    refuses the server instead of falling back to another method.
public struct AccountSetup: Sendable {
    public struct Options: Sendable {
        /// `connection.allowed-authentication-methods`; nil allows every detected method.
        public var allowedMethods: [AuthenticationMethodIdentifier]?
        /// `connection.preferred-authentication-methods`.
        public var preferredMethods: [AuthenticationMethodIdentifier] = [.openIDConnect, .oauth2, .basicAuth]
        /// Use this method (it must be detected and allowed) instead of the top-ranked one.
        public var method: AuthenticationMethodIdentifier?
        /// `connection.endpoint-status`.
        public var statusPath = "status.php"
        /// `connection.endpoint-capabilities` and `connection.endpoint-user`, read after the login.
        public var capabilitiesPath = "ocs/v2.php/cloud/capabilities"
        public var userPath = "ocs/v2.php/cloud/user"
        /// `bookmark.default-url`: the server proposed when none is given.
        public var defaultURL: String?
        /// `bookmark.url-editable`: false locks setup to ``defaultURL``.
        public var urlEditable = true
        /// `core.cookie-support-enabled`.
        public var cookies = true
        /// `connection.validator-flags`: `502-triggers` (a 502 is tried again too), `clear-cookies`
        /// (the cookies are forgotten before trying again).
        public var validatorFlags: Set<String> = ["502-triggers", "clear-cookies"]
        /// The status.php answers tried again.
        /// The statuses a load balancer's blip answers, tried again after ``retryDelays``.
        public var retriedStatuses: Set<Int> { validatorFlags.contains("502-triggers") ? [404, 502, 503] : [404, 503] }
        /// `connection.plain-http-policy`: `warn` (an http URL may lead to its https server, the
        /// upgrade approved by the user) or `forbidden`.
        public var plainHTTPPolicy = "warn"
        /// `log.http-requests`: requests and answers logged, redacted (``VigilLogging/HTTPLogRedactor``).
        public var logHTTPExchanges = false
        /// `http.user-agent`, rendered.
        public var userAgent = UserAgent.render("Vigil/{{app.version}} ({{os.name}} {{os.version}})")
        /// `connection.minimum-server-version`: status.php's `version` must be at least this.
        public var minimumServerVersion = "10.0"
        /// Waits between tries of status.php when it answers 404, 502 or 503 (a load balancer
        /// that has not seen the node yet, a restart): a bounded retry, then the answer reported.
        public var retryDelays: [Duration] = [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(2)]
        /// Waits between tries when a request with a token the provider just issued is answered 401
        /// (a cluster whose nodes learn new tokens late). A password is never retried.
        public var newTokenRetryDelays: [Duration] = [.milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(800), .milliseconds(1600)]
        public var paths = AuthenticationDetector.Paths()
        public var timeout: Duration = .seconds(30)
        /// `authentication-oauth2.oa2-client-id`: needed for OAuth2.
        public var oauth2ClientID: String?
        /// `authentication-oauth2.oa2-authorization-endpoint` and `oa2-token-endpoint`, relative to the server.
        public var oauth2AuthorizationPath = "index.php/apps/oauth2/authorize"
        public var oauth2TokenPath = "index.php/apps/oauth2/api/v1/token"
        /// `authentication-oauth2.oa2-redirect-port`; 0 picks a free one.
        public var oauth2RedirectPort = 0
        /// `authentication-oauth2.oa2-client-secret`, for a confidential client.
        public var oauth2ClientSecret: Secret?
        /// `authentication-oauth2.oa2-client-server`: where the configured client is registered
        /// (unset: ``defaultURL``); see ``oauth2Client(for:)``.
        public var oauth2ClientServer: String?
        /// `authentication-oauth2.oa2-expiration-override-seconds`.
        public var tokenLifetimeOverride: Int?
        /// `authentication-oidc.scope`, `.prompt` and `.register-client`.
        public var oidcScope = "openid offline_access email profile"
        public var oidcPrompt: String? = "select_account consent"
        public var oidcRegisterClient = true
        /// How long the user has to finish in the browser.
        public var browserTimeout: Duration = .seconds(300)
        /// Names pinned to addresses (curl's `--resolve`), for every connection of the setup.
        public var resolve: [HostResolution] = []
        /// `connection.minimum-tls-version` and `connection.pinned-public-keys`: a server below
        /// the one or without the other is refused, never offered for approval.
        public var requirements = ConnectionRequirements()
        /// `connection.approved-certificates`: leaves the administrator approved in advance.
        public var preApproved = PreApprovedCertificates()
        /// Mutual TLS: the client certificate the account presents, to its server only (bound to
        /// each server endpoint as it is reviewed; never to a login provider on another host).
        public var clientIdentity: ClientIdentity?
        /// An access proxy's service token (Cloudflare Access and the like), sent with every request
        /// to ``accessHeadersOrigin`` and nowhere else: not to a redirect target on another
        /// origin, a login provider or a proxy.
        public var accessHeaders: AccessHeaders?
        /// Where the access headers go: the server the user named (nil: nowhere).
        public var accessHeadersOrigin: Endpoint?
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

    /// The methods setup can pick from (``VigilAuth/AuthenticationMethods/standard``): a new
    /// method is registered here, not written into setup.
    public var methods = AuthenticationMethods.standard
    public var evaluator: TrustEvaluator
    public var approvals: CertificateApprovals
    public var accounts: Accounts
    public var secrets: any SecretStore
    public var options: Options
    public var logger: Logger

    public init(
        evaluator: TrustEvaluator, approvals: CertificateApprovals, accounts: Accounts, secrets: any SecretStore,
        options: Options = Options(), logger: Logger = Logger(label: "vigil.setup")
    ) {
        self.evaluator = evaluator
        self.approvals = approvals
        self.accounts = accounts
        self.secrets = secrets
        self.options = options
        self.logger = logger
    }

    public func add(server: String, user: String, interaction: any AccountSetupInteraction) async throws -> Account {
        // User information is looked for in the text itself, so that a URL no parser accepts (a
        // password with '#' or '/') is caught too, and never echoed.
        if Self.hasUserInformation(server) {
            throw AccountSetupError(
                .invalidURL,
                "The URL \(Self.withoutUserInformation(server)) carries a user name or password (an '@'); give the user with the user option, never a password in a URL (it would end up in histories and logs), and write an '@' in a path as %40. Nothing was sent."
            )
        }
        if !options.urlEditable, let locked = options.defaultURL, Self.normalized(server) != Self.normalized(locked) {
            throw AccountSetupError(
                .policy, "The administrator locked the server to \(locked) (bookmark.url-editable is false); \(server) is not it. Nothing was sent.")
        }
        // A client certificate that no server should take is refused before anything is sent.
        if let identity = options.clientIdentity, case let refusals = identity.refusals(), !refusals.isEmpty {
            throw AccountSetupError(
                .clientCertificate, "The client certificate cannot be used: " + refusals.map(\.message).joined(separator: " ") + " Nothing was sent or kept.")
        }
        // Where the secrets will go is checked before anything is asked or sent: a password
        // proved with the server and then not kept would be asked for in vain.
        try await Self.checkKeyring(secrets)
        var requested = server.hasSuffix("/") ? String(server.dropLast()) : server
        if requested.lowercased().hasPrefix("http://") {
            requested = try await upgradedFromPlainHTTP(requested, interaction: interaction)
        }
        guard requested.lowercased().hasPrefix("https://"), let firstEndpoint = try? Endpoint(url: requested) else {
            throw AccountSetupError(.invalidURL, "\(server) is not an https URL; accounts are added over https only.")
        }
        guard !user.isEmpty, !user.contains(":"), !user.contains("/") else {
            throw AccountSetupError(.invalidURL, "The user name must be non-empty, without ':' or '/'.")
        }
        if try await accounts.list().contains(where: { $0.server == requested && $0.user == user }) {
            throw AccountSetupError(.duplicate, "\(user) on \(requested) is already an account.")
        }

        // 1-2. Each server in the chain: its certificate reviewed before anything is sent to it,
        // then status.php. A redirect of status.php to another server's status.php may be
        // approved; the setup then starts again at the new server, with nothing carried over.
        var base = requested
        var endpoint = firstEndpoint
        var client: HTTPClient
        var reviewedChain: [Certificate] = []
        var hops = 0
        while true {
            (client, reviewedChain) = try await reviewedClient(for: endpoint, interaction: interaction)
            let status: HTTPResponse
            do {
                let retried = options.retriedStatuses, clearsCookies = options.validatorFlags.contains("clear-cookies")
                status = try await client.send(
                    HTTPRequest(url: "\(base)/\(options.statusPath)"), retryingAfter: options.retryDelays,
                    when: { retried.contains($0.status) || $0.heldByAccessGateway }
                ) { answer, delay in
                    if clearsCookies { client.configuration.cookies?.removeAll() }
                    let what = answer.heldByAccessGateway ? "Its access gateway let Vigil no further" : "The server answered \(answer.status)"
                    await interaction.progress("\(what); trying again in \(delay).")
                }.response
            } catch let error as HTTPError where error.code == .untrustedCertificate {
                throw Self.certificateChanged(at: endpoint, error)
            }
            if status.heldByAccessGateway, let held = Self.redirectError(status, tries: options.retryDelays.count + 1) { throw held }
            if let proxy = AccessProxyPage.recognize(status) { throw AccessProxyPage.error(proxy, at: base, hadHeaders: options.accessHeaders != nil) }
            guard let redirect = status.redirect else {
                try Self.checkStatus(status, base: base, tries: options.retryDelays.count + 1, minimumVersion: options.minimumServerVersion)
                break
            }
            let target = try Self.serverBase(redirectedTo: redirect, statusPath: options.statusPath)
            try checkURLLock(target, redirect: redirect)
            guard hops < Self.maximumRedirects else {
                throw AccountSetupError(
                    .redirected, "More than \(Self.maximumRedirects) redirects; the last one pointed to \(redirect.location).", redirect: redirect)
            }
            guard await interaction.approveRedirect(redirect, from: base) else {
                throw Self.redirectError(redirect)
            }
            await interaction.progress("Redirect approved: \(base) -> \(target).")
            if options.accessHeaders != nil {
                await interaction.progress("The access headers are not sent to \(target): they belong to the origin they were given for.")
            }
            guard let next = try? Endpoint(url: target) else {
                throw AccountSetupError(.invalidURL, "The redirect target \(target) is not an https URL.", redirect: redirect)
            }
            base = target
            endpoint = next
            hops += 1
        }
        if try await accounts.list().contains(where: { $0.server == base && $0.user == user }) {
            throw AccountSetupError(.duplicate, "\(user) on \(base) is already an account.")
        }

        do {
            await interaction.progress("\(base) is an ownCloud/OpenCloud server.")

            // 3. Which method?
            var detection = try await AuthenticationDetector(client: client, paths: options.paths, logger: logger).detect(server: base)
            try Self.stopOnRedirect(detection.redirects.first)
            if options.allowedMethods?.contains(.openIDConnect) ?? true,
                let both = try await addProvider(to: &detection, server: endpoint, serverLeaf: reviewedChain.first, interaction: interaction)
            {
                client = both
            }
            var ranked = AuthenticationMethodRanking.rank(methods.offered(by: detection), allowed: options.allowedMethods, preferred: options.preferredMethods)
            // OAuth2 needs a client registered on this server (OpenID Connect can register one);
            // without one it is passed over for the next method, and the user is told why.
            if ranked.contains(.oauth2), options.method != .oauth2, options.oauth2Client(for: base) == nil {
                let wouldHaveBeenChosen = ranked.first == .oauth2
                ranked.removeAll { $0 == .oauth2 }
                if wouldHaveBeenChosen {
                    await interaction.progress(
                        "OAuth2 is offered, but no OAuth2 client is configured for \(base) (authentication-oauth2.oa2-client-id, registered on this server by authentication-oauth2.oa2-client-server or bookmark.default-url): trying the next method."
                    )
                }
            }
            await interaction.progress(
                "Authentication methods offered: \(detection.methods.map(\.identifier.rawValue).joined(separator: ", ")); ranked: \(ranked.map(\.rawValue).joined(separator: ", "))."
            )
            if let problem = detection.rejectedOpenIDConnect, options.allowedMethods?.contains(.openIDConnect) ?? true {
                throw AccountSetupError(
                    .responseRejected,
                    "\(base) offers OpenID Connect through an unsafe discovery document: \(problem) Vigil refuses the server rather than fall back to another method."
                )
            }
            let chosen = try Self.choose(ranked: ranked, forced: options.method)
            guard let method = methods.method(chosen) else {
                throw AccountSetupError(
                    .unsupportedMethod,
                    "The method picked, \(chosen.rawValue), is not one Vigil has"
                        + (ranked.contains(where: { $0 != chosen }) ? "; choose another one the server offers with the method option." : "."))
            }

            // 5. The login, proved on the user's files before anything is kept.
            let context = AuthenticationContext(server: base, user: user, client: client, detection: detection, settings: options.authentication(for: base))
            let started = Date()
            let login = try await Self.mapped { try await method.logIn(context, interaction: interaction) }
            // After a browser login the server says who logged in (the user typed a login hint);
            // it must be the user asked for, and the account is named as the server names them.
            let serverUser = method.usesTokens ? try await loggedInUser(login, base: base, expected: user, client: client) : user
            if serverUser != user, try await accounts.list().contains(where: { $0.server == base && $0.user == serverUser }) {
                throw AccountSetupError(.duplicate, "\(serverUser) on \(base) is already an account.")
            }
            try await checkFiles(login, base: base, user: serverUser, client: client, newToken: method.usesTokens)
            var account = Account(
                server: base, user: serverUser, method: method.identifier.rawValue, reviewedChainPEM: Self.pem(reviewedChain),
                clientID: login.clientID, tokenEndpoint: login.tokenEndpoint, revocationEndpoint: login.revocationEndpoint,
                tokenExpiresAt: AccountTokens.expiry(expiresIn: login.expiresIn, override: options.tokenLifetimeOverride, from: started))
            account.issuer = login.issuer
            account.subject = login.subject
            var secrets = login.secrets
            if let identity = options.clientIdentity {
                account.clientCertificatePEM = Self.pem(identity.chain)
                secrets[.clientKey] = identity.key.withStoredForm { Secret($0) }
            }
            if let headers = options.accessHeaders, let origin = try? Endpoint(url: base), options.accessHeadersOrigin == origin {
                account.accessHeaderNames = headers.names.joined(separator: ",")
                secrets[.accessHeaders] = headers.withText { Secret($0) }
            }
            await describe(base: base, login: login, client: client, interaction: interaction)
            try await registry.add(account, secrets: secrets)
            logger.privacy.notice("Added an account on \(base) (\(public: account.method))", metadata: ["tags": "setup"])
            return account
        } catch let error as HTTPError where error.code == .untrustedCertificate {
            throw Self.certificateChanged(at: endpoint, error)
        }
    }

    /// After the login, what the server says of itself and of the user, shown: its product and
    /// version (capabilities) and the user's display name (the OCS user endpoint). Best effort:
    /// nothing depends on them, and a failure is only not shown.
    func describe(base: String, login: AuthenticationLogin, client: HTTPClient, interaction: any AccountSetupInteraction) async {
        func ocs(_ path: String) async -> [String: Any]? {
            guard
                let answer = try? await login.authorization.withValue({ authorization in
                    try await client.send(
                        HTTPRequest(
                            url: "\(base)/\(path)?format=json",
                            headers: [(name: "Authorization", value: authorization), (name: "OCS-APIREQUEST", value: "true")]))
                }), answer.status == 200, let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
            else { return nil }
            return (object["ocs"] as? [String: Any])?["data"] as? [String: Any]
        }
        if let version = (await ocs(options.capabilitiesPath))?["version"] as? [String: Any], let text = version["string"] as? String {
            await interaction.progress(
                "The server is \((version["product"] as? String) ?? "ownCloud-compatible") \(text) (\((version["edition"] as? String) ?? "edition unknown")).")
        }
        if let user = await ocs(options.userPath), let name = (user["display-name"] ?? user["displayname"]) as? String {
            await interaction.progress("Logged in as \(name).")
        }
    }

    /// Whether a server URL as typed may carry user information: any `@` at all. A password may
    /// hold `/`, `?` or `#`, which no parser can place, so the text is not parsed; a path with an
    /// `@` must be written `%40`.
    static func hasUserInformation(_ url: String) -> Bool { url.contains("@") }

    /// A typed URL shown without what could be user information: the scheme and what follows the
    /// last `@`.
    static func withoutUserInformation(_ url: String) -> String {
        guard let at = url.lastIndex(of: "@") else { return url }
        let scheme = url.range(of: "://").map { String(url[..<$0.upperBound]) } ?? ""
        return scheme + url[url.index(after: at)...]
    }

    /// A server URL for comparison: lower-case scheme and host, no trailing slash, the default port dropped.
    /// With the server locked (`bookmark.url-editable` false and `bookmark.default-url` set), a
    /// redirect may lead nowhere but the locked server (its https form, when the lock names http).
    func checkURLLock(_ target: String, redirect: Redirect) throws {
        guard !options.urlEditable, let locked = options.defaultURL else { return }
        var allowed = [Self.normalized(locked)]
        if locked.lowercased().hasPrefix("http://") { allowed.append(Self.normalized("https://" + locked.dropFirst("http://".count))) }
        guard allowed.contains(Self.normalized(target)) else {
            throw AccountSetupError(
                .policy,
                "The administrator locked the server to \(locked) (bookmark.url-editable is false), and it redirects to \(target); a redirect cannot move the account. Nothing was sent.",
                redirect: redirect)
        }
    }

    static func normalized(_ url: String) -> String {
        guard var parts = URLComponents(string: url.hasSuffix("/") ? String(url.dropLast()) : url) else { return url }
        parts.scheme = parts.scheme?.lowercased()
        parts.host = parts.host?.lowercased()
        if parts.port == 443 && parts.scheme == "https" { parts.port = nil }
        return parts.string ?? url
    }

    /// An http URL (`connection.plain-http-policy`): `forbidden` refuses it before any request;
    /// `warn` asks its status.php, with no credential, where the https server is: an upgrade to
    /// https is offered to the user as a redirect (then that server's certificate is reviewed as
    /// usual); a server that answers over plain HTTP is refused. No credential ever goes over
    /// plain HTTP, whatever the policy.
    func upgradedFromPlainHTTP(_ url: String, interaction: any AccountSetupInteraction) async throws -> String {
        guard options.plainHTTPPolicy == "warn" else {
            throw AccountSetupError(
                .policy, "\(url) is plain HTTP, and connection.plain-http-policy is forbidden; use the server's https URL. Nothing was sent.")
        }
        await interaction.progress("\(url) is plain HTTP: Vigil asks it only where its https server is, and sends no credential over plain HTTP.")
        var configuration = options.clientConfiguration
        configuration.allowPlainHTTP = true
        configuration.cookies = nil
        let plain = HTTPClient(
            policy: EvaluatorTrustPolicy(judge: ConnectionJudge(evaluator: evaluator, requirements: options.requirements)), configuration: configuration,
            logger: logger)
        let answer = try await plain.send(HTTPRequest(url: "\(url)/\(options.statusPath)"))
        guard let redirect = answer.redirect, redirect.location.lowercased().hasPrefix("https://") else {
            throw AccountSetupError(
                .invalidURL, "\(url) answers over plain HTTP (HTTP \(answer.status)) without moving to https; Vigil adds accounts over https only.")
        }
        let target = try Self.serverBase(redirectedTo: redirect, statusPath: options.statusPath)
        try checkURLLock(target, redirect: redirect)
        guard await interaction.approveRedirect(redirect, from: url) else { throw Self.redirectError(redirect) }
        await interaction.progress("Redirect approved: \(url) -> \(target).")
        return target
    }

    /// `vigil account login`: an existing account logs in again with its method (after a refused
    /// refresh, a changed password). The server's certificate is judged as on every later
    /// connection (a changed one reviewed with the user); then the method logs in again (for
    /// OpenID Connect with discovery read again), proved on the user's files; the new secrets
    /// replace the old and the account is ready again (audited).
    public func logIn(again account: Account, check: AccountCheck, interaction: any AccountSetupInteraction) async throws -> Account {
        try await Self.checkKeyring(secrets)
        let (result, reviewed) = try await check.reviewedClient(for: account, interaction: interaction)
        guard var client = reviewed else {
            let why: String
            switch result {
            case .refused(let reasons): why = reasons.map(\.message).joined(separator: " ")
            case .changed(let reason): why = reason + " It was not approved."
            default: why = "it is not accepted"
            }
            throw AccountSetupError(.certificateRejected, "The certificate of \(account.server): \(why) Nothing was sent.")
        }
        var current = try await accounts.list().first { $0.id == account.id } ?? account
        guard let method = methods.method(AuthenticationMethodIdentifier(rawValue: current.method)) else {
            throw AccountSetupError(.unsupportedMethod, "The account's method \(current.method) is not one Vigil can log in with.")
        }
        var detection = try await AuthenticationDetector(client: client, paths: options.paths, logger: logger).detect(server: current.server)
        // The provider must be the one the account logged in with: one the server names now is
        // refused before any login (and before any client secret goes to it).
        if method.identifier == .openIDConnect, let known = current.issuer {
            let named = detection.providerIssuer ?? detection.methods.first { $0.identifier == .openIDConnect }?.openIDConfiguration?.issuer
            if let named, AuthenticationDetector.trimmed(named) != AuthenticationDetector.trimmed(known) {
                throw AccountSetupError(
                    .responseRejected,
                    "\(current.server) now names the login provider \(SafeText.escaped(named)), not \(SafeText.escaped(known)), the one this account logged in with; nothing was sent. Remove and add the account again if the server really moved its provider."
                )
            }
        }
        if method.identifier == .openIDConnect, let server = try? Endpoint(url: current.server),
            let both = try await addProvider(
                to: &detection, server: server, serverLeaf: (try? current.reviewedChainPEM.map { try Certificate.parsePEM($0) })??.first,
                interaction: interaction)
        {
            client = both
        }
        if method.identifier == .openIDConnect, let problem = detection.rejectedOpenIDConnect {
            throw AccountSetupError(.responseRejected, "\(current.server) offers OpenID Connect through an unsafe discovery document: \(problem)")
        }
        let context = AuthenticationContext(
            server: current.server, user: current.user, client: client, detection: detection, settings: options.authentication(for: current.server))
        let started = Date()
        let login = try await Self.mapped { try await method.logIn(context, interaction: interaction) }
        if method.usesTokens { _ = try await loggedInUser(login, base: current.server, expected: current.user, client: client) }
        // The same person at the provider as at setup: a stable identity, whatever names change.
        if let issuer = current.issuer, let subject = current.subject, login.issuer != issuer || login.subject != subject {
            throw AccountSetupError(
                .responseRejected,
                "The provider logged in another identity (\(SafeText.escaped(login.issuer ?? "?")) \(SafeText.escaped(login.subject ?? "?"))) than the account's (\(SafeText.escaped(issuer)) \(SafeText.escaped(subject))); nothing is kept."
            )
        }
        try await checkFiles(login, base: current.server, user: current.user, client: client, newToken: method.usesTokens)
        current.issuer = current.issuer ?? login.issuer
        current.subject = current.subject ?? login.subject
        current.clientID = login.clientID ?? current.clientID
        current.tokenEndpoint = login.tokenEndpoint ?? current.tokenEndpoint
        current.revocationEndpoint = login.revocationEndpoint ?? current.revocationEndpoint
        current.tokenExpiresAt = AccountTokens.expiry(expiresIn: login.expiresIn, override: options.tokenLifetimeOverride, from: started)
        return try await registry.replace(current, secrets: login.secrets, because: "logged in again")
    }

    /// Moves `account` to the server at `url` (a new name, a new port): the new server is reviewed
    /// as at setup (its certificate shown, approved or refused; status.php an ownCloud or
    /// OpenCloud server's; no redirect followed), then a password account's stored password is
    /// proved on the user's files there before it moves with the account; a token account's tokens
    /// stay behind (they are the old server's) and it needs `vigil account login`. Audited.
    public func move(_ account: Account, to url: String, interaction: any AccountSetupInteraction) async throws -> Account {
        try await Self.checkKeyring(secrets)
        let target = url.hasSuffix("/") ? String(url.dropLast()) : url
        if Self.hasUserInformation(target) {
            throw AccountSetupError(.invalidURL, "The URL \(Self.withoutUserInformation(target)) carries a user name or password; nothing was sent.")
        }
        if !options.urlEditable, let locked = options.defaultURL, Self.normalized(target) != Self.normalized(locked) {
            throw AccountSetupError(
                .policy, "The administrator locked the server to \(locked) (bookmark.url-editable is false); \(target) is not it. Nothing was sent.")
        }
        guard target.lowercased().hasPrefix("https://"), let endpoint = try? Endpoint(url: target) else {
            throw AccountSetupError(.invalidURL, "\(url) is not an https URL; accounts live on https only.")
        }
        guard Self.normalized(target) != Self.normalized(account.server) else {
            throw AccountSetupError(.invalidURL, "The account is on \(account.server) already.")
        }
        let (client, chain) = try await reviewedClient(for: endpoint, interaction: interaction)
        let status = try await client.send(HTTPRequest(url: "\(target)/\(options.statusPath)"))
        if let redirect = status.redirect {
            throw AccountSetupError(
                .redirected, "\(target) redirects to \(redirect.location); move the account there instead. Nothing was sent.", redirect: redirect)
        }
        try Self.checkStatus(status, base: target, tries: 1, minimumVersion: options.minimumServerVersion)
        guard let method = methods.method(AuthenticationMethodIdentifier(rawValue: account.method)) else {
            throw AccountSetupError(.unsupportedMethod, "The account's method \(account.method) is not one Vigil can use.")
        }
        var stored: [SecretKey.Kind: Secret] = [:]
        for kind in method.secretKinds { stored[kind] = try await secrets.secret(for: SecretKey(account: account.secretAccount, kind: kind)) }
        let moved: Account
        if !method.usesTokens, let authorization = method.authorization(user: account.user, secrets: stored) {
            let login = AuthenticationLogin(
                secrets: stored, authorization: Secret(authorization),
                refusal: "\(target) refused \(account.user)'s stored password: is it the same server's user?")
            try await checkFiles(login, base: target, user: account.user, client: client, newToken: false)
            moved = try await accounts.move(id: account.id, to: target, reviewedChainPEM: Self.pem(chain), needsLogin: false)
            try await registry.store(stored, of: moved)
        } else {
            moved = try await accounts.move(id: account.id, to: target, reviewedChainPEM: Self.pem(chain), needsLogin: true)
        }
        for kind in SecretKey.Kind.allKinds { _ = try? await secrets.remove(SecretKey(account: account.secretAccount, kind: kind)) }
        logger.privacy.notice("Moved an account from \(account.server) to \(target)", metadata: ["tags": "setup"])
        return moved
    }

    /// The keyring answers (a search, which reads no secret and asks nothing), or setup stops
    /// with how to get one. Vigil never falls back to a file.
    static func checkKeyring(_ secrets: any SecretStore) async throws {
        do {
            _ = try await secrets.accounts(kind: .password)
        } catch let error as SecretStoreError where error.advice != nil {
            throw AccountSetupError(.keyringUnavailable, "\(error.situation) (\(error.reason)). \(error.advice ?? "") Nothing was asked or sent.")
        }
    }

    /// The accounts and their secrets, kept together.
    var registry: AccountRegistry { AccountRegistry(accounts: accounts, secrets: secrets) }

    /// A login's failure as a setup error: a forged, mixed-up or invalid answer is refused; a
    /// provider or server that says no is wrong credentials; no browser in time is no password.
    static func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as OAuth2Error {
            switch error.code {
            case .timeout: throw AccountSetupError(.noPassword, error.reason)
            case .stateMismatch, .invalidTokenResponse, .discoveryRejected, .issuerMismatch, .invalidIDToken, .userMismatch:
                throw AccountSetupError(.responseRejected, error.reason)
            case .registration: throw AccountSetupError(.configuration, error.reason)
            case .unavailable: throw AccountSetupError(.maintenance, error.reason)
            case .redirectListener, .refused: throw AccountSetupError(.wrongCredentials, error.reason)
            // A code added later is taken for a forged or invalid answer until it is named here.
            default: throw AccountSetupError(.responseRejected, error.reason)
            }
        } catch let error as AuthenticationError {
            switch error.code {
            case .noPassword: throw AccountSetupError(.noPassword, error.reason)
            case .configuration: throw AccountSetupError(.configuration, error.reason)
            case .notOffered: throw AccountSetupError(.noUsableMethod, error.reason)
            default: throw AccountSetupError(.configuration, error.reason)
            }
        }
    }

    /// A login proved on the user's files (a `PROPFIND` of their root answered 207) before
    /// anything keeps it.
    /// The user a token belongs to, as the server says (its OCS user endpoint, `data.id`): a
    /// provider may name users by an opaque `sub`, and only the server knows whose files the
    /// token opens. It must be `expected` (the login hint the user gave; compared without case,
    /// as ownCloud's user ids are), else nothing is kept and both names are shown. A server that
    /// does not answer leaves `expected` (the files check that follows proves the token on them).
    func loggedInUser(_ login: AuthenticationLogin, base: String, expected: String, client: HTTPClient) async throws -> String {
        let answer = try? await login.authorization.withValue { authorization in
            try await client.send(
                HTTPRequest(
                    url: "\(base)/\(options.userPath)?format=json",
                    headers: [(name: "Authorization", value: authorization), (name: "OCS-APIREQUEST", value: "true")]),
                retryingAfter: options.newTokenRetryDelays, when: { $0.status == 401 }
            ).response
        }
        guard let answer, answer.status == 200, let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any],
            let data = (object["ocs"] as? [String: Any])?["data"] as? [String: Any], let id = data["id"] as? String, !id.isEmpty
        else {
            // Fails closed: with a provider's opaque sub, only the server can say whose the token is.
            throw AccountSetupError(
                .responseRejected,
                "\(base) did not say whose the token is (its user endpoint \(options.userPath) answered \(answer.map { "HTTP \($0.status)" } ?? "nothing")); nothing is kept."
            )
        }
        guard id.caseInsensitiveCompare(expected) == .orderedSame else {
            throw AccountSetupError(
                .responseRejected,
                "The browser login was \(SafeText.escaped(id))'s, not \(SafeText.escaped(expected))'s (the server says whose the token is); nothing is kept. Log in as \(SafeText.escaped(expected)), or add the account as \(SafeText.escaped(id))."
            )
        }
        return id
    }

    func checkFiles(_ login: AuthenticationLogin, base: String, user: String, client: HTTPClient, newToken: Bool) async throws {
        // A token just issued may not be known to every node yet: a 401 is retried (bounded); a
        // password's 401 is final at once.
        let root = "\(base)/\(options.paths.webDAV)/\(Self.pathComponent(user))/"
        let outcome = try await login.authorization.withValue { authorization in
            try await FilesProbe(client: client).run(rootURL: root, authorization: authorization, retryingAfter: newToken ? options.newTokenRetryDelays : [])
        }
        try Self.judge(outcome, base: base, refusal: login.refusal)
    }

    /// A files probe's outcome as a setup error, or nothing when the files work.
    static func judge(_ outcome: FilesProbe.Outcome, base: String, refusal: String) throws {
        switch outcome.listStatus {
        case 207: break
        case 401, 403: throw AccountSetupError(.wrongCredentials, refusal.hasSuffix("?") ? "\(refusal) (HTTP \(outcome.listStatus))" : refusal)
        default: throw notWebDAV(outcome.listing, base: base)
        }
        if let status = outcome.downloadStatus, !outcome.isWorking {
            throw AccountSetupError(
                .serverError,
                "\(base) lists the user's files but answered the download of \(SafeText.escaped(outcome.downloaded ?? "a file")) with HTTP \(status): the server cannot serve files (a storage fault?). The account was not added."
            )
        }
    }

    /// The WebDAV check answered with something other than a multi-status, in words: an HTML page
    /// is most likely an access-policy manager's or a captive portal's login page.
    static func notWebDAV(_ response: HTTPResponse, base: String) -> AccountSetupError {
        let type = response.header("Content-Type")?.lowercased() ?? ""
        if type.contains("text/html") || response.body.starts(with: Array("<!DOCTYPE".utf8)) || response.body.starts(with: Array("<html".utf8)) {
            return AccountSetupError(
                .notACloudServer,
                "\(base) answered the WebDAV check with an HTML page (HTTP \(response.status)), not WebDAV: a login page of an access-policy manager or captive portal in front of the server? Log in to it in a browser, or ask its admin."
            )
        }
        return AccountSetupError(.notACloudServer, "\(base) answered the WebDAV check with HTTP \(response.status) instead of a WebDAV multi-status.")
    }

    /// A user name as one path segment.
    static func pathComponent(_ user: String) -> String {
        user.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? user
    }

    /// The policy refused a chain after the review: the server's certificate changed meanwhile.
    static func certificateChanged(at endpoint: Endpoint, _ error: HTTPError) -> AccountSetupError {
        AccountSetupError(.certificateRejected, "\(endpoint) presented a certificate other than the one reviewed; nothing was sent. \(error.reason)")
    }

    /// Most redirects of status.php followed (each approved by the user).
    static let maximumRedirects = 10

    /// Probes `endpoint`, shows the chain, has an untrusted leaf approved (or stops), and returns
    /// a client whose policy accepts exactly what was trusted or approved.
    /// A chain as PEM, leaf first.
    static func pem(_ chain: [Certificate]) -> String? {
        chain.isEmpty ? nil : chain.map(\.pemEncoded).joined()
    }

    /// A finding, not a refusal: under TLS 1.2 the client's Certificate message is not encrypted,
    /// so whoever is on the path reads the certificate, and with it who the user is.
    public static func clientCertificateInClear(_ handshake: TLSProbe.Handshake) -> String? {
        guard handshake.negotiated == .tls12 || handshake.negotiated == .tls11 || handshake.negotiated == .tls10 else { return nil }
        return
            "Finding: the server negotiates \(handshake.protocolVersion), where a client certificate crosses the network in clear: anyone on the path reads the certificate and so the user's name (TLS 1.3 encrypts it)."
    }

    func reviewedClient(for endpoint: Endpoint, interaction: any AccountSetupInteraction) async throws -> (HTTPClient, [Certificate]) {
        let handshake = try await TLSProbe(timeout: options.timeout, logger: logger, resolve: options.resolve).handshake(with: endpoint)
        let evaluation = await ConnectionJudge(evaluator: evaluator, requirements: options.requirements).verdict(for: handshake, endpoint: endpoint)
        await interaction.review(evaluation, chain: handshake.chain, endpoint: endpoint)
        if options.clientIdentity != nil, handshake.clientCertificate?.requested == true, let finding = Self.clientCertificateInClear(handshake) {
            await interaction.progress(finding)
            logger.privacy.warning("\(public: finding)", metadata: ["tags": "setup,tls"])
        }
        if !evaluation.verdict.isTrusted {
            try await approveIfTheUserAgrees(evaluation, chain: handshake.chain, endpoint: endpoint, interaction: interaction)
        }
        return await (
            try Self.client(for: endpoint, evaluator: evaluator, approvals: approvals, options: options, reviewed: handshake.chain.first, logger: logger),
            handshake.chain
        )
    }

    /// A client for `endpoint` whose policy accepts what the evaluator trusts, or a leaf approved
    /// (by the user or in advance) for this host and port, and nothing below the requirements;
    /// with `reviewed`, that very leaf and no other.
    /// `provider`: the login provider on another host, with the leaf reviewed for it (nil: its
    /// approvals only): the same client then reaches both, each with its own approvals.
    static func client(
        for endpoint: Endpoint, evaluator: TrustEvaluator, approvals: CertificateApprovals, options: Options,
        reviewed: Certificate?, provider: (endpoint: Endpoint, reviewed: Certificate?)? = nil, logger: Logger
    ) async throws -> HTTPClient {
        var configuration = options.clientConfiguration
        configuration.clientIdentity = options.clientIdentity.map { ClientIdentityBinding(identity: $0, origin: endpoint) }
        // Only to the origin they were given for: none named, none sent (fail closed).
        if let headers = options.accessHeaders, options.accessHeadersOrigin == endpoint {
            configuration.accessHeaders = AccessHeadersBinding(headers: headers, origin: endpoint)
        }
        var approved: [Endpoint: Set<String>] = [:]
        var reviewedLeaves: [Endpoint: String] = [:]
        for (each, leaf) in [(endpoint, reviewed)] + (provider.map { [($0.endpoint, $0.reviewed)] } ?? []) {
            approved[each] = try await approvals.approvedLeaves(host: each.host, port: each.port).union(options.preApproved.fingerprints(for: each))
            if let leaf { reviewedLeaves[each] = leaf.sha256Fingerprint }
        }
        return HTTPClient(
            policy: EvaluatorTrustPolicy(
                judge: ConnectionJudge(evaluator: evaluator, requirements: options.requirements), approvals: approved, reviewedLeaves: reviewedLeaves),
            configuration: configuration, logger: logger)
    }

    /// When detection found a login provider on another host: it reviewed (``reviewedProvider``),
    /// OpenID Connect offered with its configuration, and the client that reaches both returned;
    /// nil when the provider is the server itself.
    func addProvider(
        to detection: inout AuthenticationDetection, server: Endpoint, serverLeaf: Certificate?, interaction: any AccountSetupInteraction
    ) async throws -> HTTPClient? {
        guard let issuer = detection.providerIssuer else { return nil }
        let (both, configuration) = try await reviewedProvider(issuer, server: server, serverLeaf: serverLeaf, interaction: interaction)
        detection.methods.insert(
            DetectedAuthenticationMethod(
                identifier: .openIDConnect, evidence: "The server's login provider \(issuer) (another host) names itself in its discovery document.",
                openIDConfiguration: configuration), at: 0)
        return both
    }

    /// The login provider the server names on another host: its certificate reviewed as the
    /// server's was (trusted, approved by the user, or refused by the same rules), then its own
    /// discovery document read from it, whose issuer must be exactly the one named. Returns a
    /// client for the server and the provider, and the provider's configuration. A provider that
    /// cannot be reached or read refuses OpenID Connect (never a silent fall back).
    func reviewedProvider(
        _ issuer: String, server: Endpoint, serverLeaf: Certificate?, interaction: any AccountSetupInteraction
    ) async throws -> (HTTPClient, OpenIDConfiguration) {
        guard let providerEndpoint = try? Endpoint(url: issuer) else {
            throw AccountSetupError(.responseRejected, "The login provider \(issuer) the server names is not an https URL.")
        }
        await interaction.progress("The server's login provider is on another host: \(issuer). Its certificate is reviewed too.")
        let providerLeaf: Certificate?
        do {
            providerLeaf = try await reviewedClient(for: providerEndpoint, interaction: interaction).1.first
        } catch let error as HTTPError {
            throw AccountSetupError(.responseRejected, "The login provider \(issuer) the server names cannot be reached: \(error.reason)")
        }
        let client = try await Self.client(
            for: server, evaluator: evaluator, approvals: approvals, options: options, reviewed: serverLeaf,
            provider: (providerEndpoint, providerLeaf), logger: logger)
        let answer: HTTPResponse
        do {
            answer = try await client.send(HTTPRequest(url: "\(issuer)/\(options.paths.wellKnown)/openid-configuration"))
        } catch let error as HTTPError {
            throw AccountSetupError(.responseRejected, "The login provider's discovery document could not be read: \(error.reason)")
        }
        guard answer.status == 200, answer.redirect == nil else {
            throw AccountSetupError(.responseRejected, "The login provider \(issuer) answered its discovery document with HTTP \(answer.status).")
        }
        switch AuthenticationDetector.validateProvider(answer.body, issuer: issuer) {
        case .success(let configuration): return (client, configuration)
        case .failure(let problem): throw AccountSetupError(.responseRejected, "The login provider's discovery document: \(problem.reason)")
        }
    }

    /// The server a status.php redirect points to: its location without the status path. A
    /// downgrade, or a location that is not another server's status.php, is not followed.
    static func serverBase(redirectedTo redirect: Redirect, statusPath: String) throws -> String {
        if redirect.isDowngrade || redirect.carriesUserInformation { try stopOnRedirect(redirect) }
        var location = redirect.location
        if let query = location.firstIndex(where: { $0 == "?" || $0 == "#" }) { location = String(location[..<query]) }
        guard location.hasSuffix("/" + statusPath) else {
            throw AccountSetupError(
                .redirected, "status.php redirects (\(redirect.status)) to \(redirect.location), which is not a server's status.php; not followed.",
                redirect: redirect)
        }
        return String(location.dropLast(statusPath.count + 1))
    }

    func approveIfTheUserAgrees(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint, interaction: any AccountSetupInteraction) async throws
    {
        guard let leaf = chain.first else { throw AccountSetupError(.certificateRejected, "\(endpoint) sent no certificate.") }
        // Broken cryptography or another name: refused before the user is asked, and an earlier
        // approval does not count either.
        let refusals = ApprovalRule.refusals(evaluation, sent: chain)
        if !refusals.isEmpty {
            throw AccountSetupError(
                .certificateRejected,
                "The certificate of \(endpoint) cannot be approved: " + refusals.map(\.message).joined(separator: " ") + " Nothing was sent.")
        }
        if try await approvals.approvedLeaves(host: endpoint.host, port: endpoint.port).contains(leaf.sha256Fingerprint) {
            await interaction.progress("The certificate is not trusted, but was approved before for \(endpoint.host):\(endpoint.port).")
            return
        }
        if options.preApproved.fingerprints(for: endpoint).contains(leaf.sha256Fingerprint) {
            await interaction.progress(
                "The certificate is not trusted, but the administrator approved it in advance for \(endpoint.host):\(endpoint.port) (connection.approved-certificates)."
            )
            return
        }
        guard await interaction.approveCertificate(evaluation, chain: chain, endpoint: endpoint) else {
            throw AccountSetupError(.certificateRejected, "The certificate of \(endpoint) is not trusted and was not approved; nothing was sent.")
        }
        try await approvals.approve(leaf, host: endpoint.host, port: endpoint.port, note: "approved while adding an account")
        await interaction.progress("Certificate approved for \(endpoint.host):\(endpoint.port) (see the certificates audit).")
    }

    static func stopOnRedirect(_ redirect: Redirect?) throws {
        if let redirect { throw redirectError(redirect) }
    }

    /// A redirected answer as an error: the gateway's hold (``HTTPResponse/heldByAccessGateway``),
    /// unavailable for now after `tries`, or the server's redirect, not followed.
    static func redirectError(_ answer: HTTPResponse, tries: Int) -> AccountSetupError? {
        if let proxy = AccessProxyPage.recognize(answer) {
            return AccessProxyPage.error(proxy, at: "the server", hadHeaders: false)
        }
        guard let redirect = answer.redirect else { return nil }
        guard answer.heldByAccessGateway else { return redirectError(redirect) }
        return AccountSetupError(
            .unavailable,
            "An access gateway in front of the server sends Vigil to \(redirect.location) and lets it no further (no session cookie), through \(tries) tries: it is unavailable for now; try again later.",
            redirect: redirect)
    }

    static func redirectError(_ redirect: Redirect) -> AccountSetupError {
        var what = "The server redirects (\(redirect.status)) to \(redirect.location)"
        if redirect.isDowngrade {
            what += ", which is plain HTTP: never followed"
        } else if redirect.carriesUserInformation {
            what += " with a user name or password in the URL (not shown): never followed"
        } else if redirect.changesHost {
            what += ", another host: add the account with that URL to review its certificate"
        } else {
            what += ": add the account with that URL if it is expected"
        }
        return AccountSetupError(.redirected, what + ".", redirect: redirect)
    }

    static func checkStatus(_ response: HTTPResponse, base: String, tries: Int = 1, minimumVersion: String = "0") throws {
        if [404, 502, 503].contains(response.status) {
            let what =
                response.status == 404
                ? "404 Not Found (no ownCloud/OpenCloud at this URL, or a node that is not up yet)"
                : "\(response.status) (the server or a proxy in front of it is unavailable)"
            throw AccountSetupError(
                .notACloudServer, "\(base) answered status.php with \(what), \(tries) times with pauses; check the URL, or try again later.")
        }
        guard response.status == 200, let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            object["installed"] as? Bool == true
        else {
            throw AccountSetupError(.notACloudServer, "\(base) does not answer status.php like an ownCloud/OpenCloud server (HTTP \(response.status)).")
        }
        if object["maintenance"] as? Bool == true {
            throw AccountSetupError(.maintenance, "\(base) is in maintenance mode; try again later.")
        }
        if let version = object["version"] as? String, Self.version(version, isBelow: minimumVersion) {
            throw AccountSetupError(
                .notACloudServer, "\(base) runs version \(version), below the oldest Vigil accepts (\(minimumVersion), connection.minimum-server-version).")
        }
    }

    /// Dotted versions compared number by number (`8.2.11.3` is below `10.0`); text that is not
    /// numbers is never below.
    static func version(_ version: String, isBelow minimum: String) -> Bool {
        // Each component's leading digits (`8.2-beta` is 8.2); a component without any is not a number.
        let parts = { (text: String) in text.split(separator: ".").map { Int($0.prefix { $0.isNumber }) } }
        let have = parts(version), want = parts(minimum)
        guard !have.contains(nil), !want.contains(nil) else { return false }
        for index in 0..<max(have.count, want.count) {
            let a = index < have.count ? have[index]! : 0, b = index < want.count ? want[index]! : 0
            if a != b { return a < b }
        }
        return false
    }

    static func choose(ranked: [AuthenticationMethodIdentifier], forced: AuthenticationMethodIdentifier?) throws -> AuthenticationMethodIdentifier {
        if let forced {
            guard ranked.contains(forced) else {
                throw AccountSetupError(.noUsableMethod, "\(forced.rawValue) is not offered by the server or not allowed by the settings.")
            }
            return forced
        }
        guard let first = ranked.first else {
            throw AccountSetupError(.noUsableMethod, "No authentication method the server offers is allowed by the settings.")
        }
        return first
    }
}
