import FoundationEssentials
import Glibc
public import Logging
public import VigilAuth
public import VigilCertificates
import VigilHTTP
import VigilLogging
public import VigilSecrets
public import VigilStore
import VigilText

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
    /// The methods setup can pick from (``VigilAuth/AuthenticationMethods/standard``): a new
    /// method is registered here, not written into setup.
    public var methods = AuthenticationMethods.standard
    /// Judges each server's chain.
    public var evaluator: TrustEvaluator
    /// Where the user's certificate approvals are stored (audited).
    public var approvals: CertificateApprovals
    /// Where the new account is saved.
    public var accounts: Accounts
    /// The keyring the account's password or tokens are kept in.
    public var secrets: any SecretStore
    /// What the settings ask of the setup.
    public var options: Options
    /// Where the setup logs.
    public var logger: Logger

    /// A setup with the standard methods.
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

    /// Adds `user`'s account on `server` through the steps above and returns it as saved. A step that stops
    /// setup throws, mostly an ``AccountSetupError`` (a URL carrying a password is refused before anything is sent).
    public func add(server: String, user: String, interaction: any AccountSetupInteraction) async throws -> Account {
        // A copy: an approved redirect may move where the credentials go (options.credentialsOrigin).
        var setup = self
        return try await setup.adding(server: server, user: user, interaction: interaction)
    }

    private mutating func adding(server: String, user: String, interaction: any AccountSetupInteraction) async throws -> Account {
        // 0. What can be refused before anything is sent.
        let (requested, firstEndpoint) = try await startingPoint(server: server, user: user, interaction: interaction)
        // 1, 2 and 4. The server reviewed, its status.php read, its redirects approved.
        var reached = try await reachServer(requested, at: firstEndpoint, interaction: interaction)
        try await refuseDuplicate(user, on: reached.base)
        do {
            await interaction.progress("\(reached.base) is \(Self.productPhrase(reached.product)) server.")
            // 3. Which method.
            let (method, detection) = try await chooseMethod(on: &reached, interaction: interaction)
            // 5. The login, proved on the user's files before anything is kept.
            return try await logInAndKeep(user: user, with: method, detection: detection, on: reached, interaction: interaction)
        } catch let error as HTTPError where error.code == .untrustedCertificate {
            throw Self.certificateChanged(at: reached.endpoint, error)
        }
    }

    /// The server setup reached: its base URL and endpoint after approved redirects, the client
    /// whose policy holds its reviewed certificate, that chain, and the product status.php names.
    struct ServerReached {
        var base: String
        var endpoint: Endpoint
        var client: HTTPClient
        var reviewedChain: [Certificate]
        var product: String?
    }

    /// Step 0: a URL with user information, another server than the administrator locked, a client
    /// certificate no server should take, no keyring, not https (plain HTTP is offered its https
    /// upgrade), a user name that cannot be one, an account that exists already: each refused
    /// before anything is sent. Returns the https URL asked for and its endpoint.
    mutating func startingPoint(server: String, user: String, interaction: any AccountSetupInteraction) async throws -> (String, Endpoint) {
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
        let plain = requested.lowercased().hasPrefix("http://")
        if plain {
            requested = try await upgradedFromPlainHTTP(requested, interaction: interaction)
        }
        guard requested.lowercased().hasPrefix("https://"), let endpoint = try? Endpoint(url: requested) else {
            throw AccountSetupError(.invalidURL, "\(server) is not an https URL; accounts are added over https only.")
        }
        if plain { await carryCredentials(from: server, to: endpoint, interaction: interaction) }
        guard !user.isEmpty, !user.contains(":"), !user.contains("/") else {
            throw AccountSetupError(.invalidURL, "The user name must be non-empty, without ':' or '/'.")
        }
        try await refuseDuplicate(user, on: requested)
        return (requested, endpoint)
    }

    /// Steps 1, 2 and 4, for each server in turn: its certificate reviewed before anything is sent
    /// to it, then status.php. A redirect of status.php to another server's status.php may be
    /// approved; the setup then starts again at the new server, with nothing carried over.
    mutating func reachServer(_ requested: String, at firstEndpoint: Endpoint, interaction: any AccountSetupInteraction) async throws -> ServerReached {
        var base = requested
        var endpoint = firstEndpoint
        var hops = 0
        while true {
            let (client, reviewedChain) = try await reviewedClient(for: endpoint, interaction: interaction)
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
                let product = JSONValue.parseObject(status.body)?["productname"]?.string
                return ServerReached(base: base, endpoint: endpoint, client: client, reviewedChain: reviewedChain, product: product)
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
            guard let next = try? Endpoint(url: target) else {
                throw AccountSetupError(.invalidURL, "The redirect target \(target) is not an https URL.", redirect: redirect)
            }
            await carryCredentials(from: base, to: next, interaction: interaction)
            base = target
            endpoint = next
            hops += 1
        }
    }

    /// Step 3: the methods detected without credentials (an OpenID Connect provider on its own
    /// host reviewed too, which gives `reached` a client that trusts both), filtered and ranked by
    /// the settings; OAuth2 passed over without a registered client; the one picked, or why none.
    func chooseMethod(on reached: inout ServerReached, interaction: any AccountSetupInteraction) async throws -> (
        any AuthenticationMethod, AuthenticationDetection
    ) {
        let base = reached.base
        var detection = try await AuthenticationDetector(client: reached.client, paths: options.paths, logger: logger).detect(
            server: base, product: reached.product)
        try Self.stopOnRedirect(detection.redirects.first)
        if options.allowedMethods?.contains(.openIDConnect) ?? true,
            let both = try await addProvider(to: &detection, server: reached.endpoint, serverLeaf: reached.reviewedChain.first, interaction: interaction)
        {
            reached.client = both
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
        // A password given in advance (--password-stdin) is for Basic: a browser login chosen
        // instead would wait for a person who is not there. Said at once, with what is offered.
        if options.passwordGiven, options.method == nil, chosen != .basicAuth {
            throw AccountSetupError(
                .noUsableMethod,
                "A password was given (--password-stdin), but \(base) offers no Basic authentication that the settings allow: it offers \(ranked.map(\.rawValue).joined(separator: ", ")), which log in through a browser. Run without --password-stdin, or choose one with --method."
            )
        }
        guard let method = methods.method(chosen) else {
            throw AccountSetupError(
                .unsupportedMethod,
                "The method picked, \(chosen.rawValue), is not one Vigil has"
                    + (ranked.contains(where: { $0 != chosen }) ? "; choose another one the server offers with the method option." : "."))
        }
        return (method, detection)
    }

    /// Step 5: the login; the user the server says logged in (after a browser login) must be the
    /// one asked for; the login proved on the user's files; then the account, with its reviewed
    /// chain and the client certificate and access headers for their own origin only, kept with
    /// its secrets in one step.
    func logInAndKeep(
        user: String, with method: any AuthenticationMethod, detection: AuthenticationDetection, on reached: ServerReached,
        interaction: any AccountSetupInteraction
    ) async throws -> Account {
        let base = reached.base, client = reached.client
        let context = AuthenticationContext(server: base, user: user, client: client, detection: detection, settings: options.authentication(for: base))
        let started = Date()
        let login = try await Self.mapped { try await method.logIn(context, interaction: interaction) }
        // After a browser login the server says who logged in (the user typed a login hint);
        // it must be the user asked for, and the account is named as the server names them.
        let serverUser = method.usesTokens ? try await loggedInUser(login, base: base, expected: user, client: client) : user
        if serverUser != user { try await refuseDuplicate(serverUser, on: base) }
        try await checkFiles(login, base: base, user: serverUser, client: client, newToken: method.usesTokens)
        var account = Account(
            server: base, user: serverUser, method: method.identifier.rawValue, reviewedChainPEM: Self.pem(reached.reviewedChain),
            clientID: login.clientID, tokenEndpoint: login.tokenEndpoint, revocationEndpoint: login.revocationEndpoint,
            tokenExpiresAt: AccountTokens.expiry(expiresIn: login.expiresIn, override: options.tokenLifetimeOverride, from: started))
        account.issuer = login.issuer
        account.subject = login.subject
        account.noRefreshToken = method.usesTokens && login.secrets[.refreshToken] == nil
        account.trustAnchorsPEM = options.trustAnchorsPEM
        var secrets = login.secrets
        // The client certificate and access headers are kept only for the origin they go to.
        let origin = try? Endpoint(url: base)
        let ownOrigin = origin.map { options.credentialsOrigin?.isSameOrigin(as: $0) == true } ?? false
        if let identity = options.clientIdentity, ownOrigin {
            account.clientCertificatePEM = Self.pem(identity.chain)
            secrets[.clientKey] = identity.key.withStoredForm { Secret($0) }
        }
        if let headers = options.accessHeaders, ownOrigin {
            account.accessHeaderNames = headers.names.joined(separator: ",")
            secrets[.accessHeaders] = headers.withText { Secret($0) }
        }
        await describe(base: base, login: login, client: client, interaction: interaction)
        try await registry.add(account, secrets: secrets)
        logger.privacy.notice("Added an account on \(base) (\(public: account.method))", metadata: ["tags": "setup"])
        return account
    }

    /// "an ownCloud/OpenCloud", or the product status.php names ("a Nextcloud"), in words.
    static func productPhrase(_ product: String?) -> String {
        guard let product, !product.isEmpty, product.count <= 40, product.allSatisfy({ $0.isLetter || $0.isNumber || $0 == " " || $0 == "-" })
        else { return "an ownCloud/OpenCloud" }
        return ("aeiou".contains(product.lowercased().first ?? "x") ? "an " : "a ") + product
    }

    /// After setup moved from `origin` to `target` (an approved redirect, or plain HTTP's upgrade):
    /// the client certificate and access headers go there only if the user agrees; otherwise they
    /// stay where they were given, so that `target` gets neither and the account keeps neither.
    mutating func carryCredentials(from origin: String, to target: Endpoint, interaction: any AccountSetupInteraction) async {
        guard options.credentialsOrigin?.isSameOrigin(as: target) != true else { return }
        let what = [options.clientIdentity != nil ? "client certificate" : nil, options.accessHeaders != nil ? "access headers" : nil].compactMap { $0 }
        guard !what.isEmpty else { return }
        let words = "the account's " + what.joined(separator: " and ")
        if await interaction.presentCredentials(words, givenFor: origin, to: target.description) {
            options.credentialsOrigin = target
            await interaction.progress("Presented to \(target) as agreed: \(words).")
        } else {
            await interaction.progress("Not presented to \(target), nor kept for it: \(words), given for \(origin).")
        }
    }

    /// After the login, what the server says of itself and of the user, shown: its product and
    /// version (capabilities) and the user's display name (the OCS user endpoint). Best effort:
    /// nothing depends on them, and a failure is only not shown.
    func describe(base: String, login: AuthenticationLogin, client: HTTPClient, interaction: any AccountSetupInteraction) async {
        func ocs(_ path: String) async -> [String: JSONValue]? {
            guard
                let answer = try? await login.authorization.withValue({ authorization in
                    try await client.send(
                        HTTPRequest(
                            url: "\(base)/\(path)?format=json",
                            headers: [(name: "Authorization", value: authorization), (name: "OCS-APIREQUEST", value: "true")]))
                }), answer.status == 200, let object = JSONValue.parseObject(answer.body)
            else { return nil }
            return object["ocs"]?.object?["data"]?.object
        }
        if let version = (await ocs(options.capabilitiesPath))?["version"]?.object, let text = version["string"]?.string {
            await interaction.progress(
                "The server is \(version["product"]?.string ?? "ownCloud-compatible") \(text) (\(version["edition"]?.string ?? "edition unknown")).")
        }
        if let user = await ocs(options.userPath), let name = (user["display-name"] ?? user["displayname"])?.string {
            await interaction.progress("Logged in as \(name).")
        }
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
            case .redirectNotRegistered: throw AccountSetupError(.redirectNotRegistered, error.reason)
            case .unavailable: throw AccountSetupError(.maintenance, error.reason)
            case .redirectListener, .refused: throw AccountSetupError(.wrongCredentials, error.reason)
            // A code added later is taken for a forged or invalid answer until it is named here.
            default: throw AccountSetupError(.responseRejected, error.reason)
            }
        } catch let error as LoginFlowError {
            switch error.code {
            case .notOffered: throw AccountSetupError(.noUsableMethod, error.reason)
            case .unavailable: throw AccountSetupError(.unavailable, error.reason)
            case .otherOrigin: throw AccountSetupError(.redirected, error.reason)
            case .timeout, .cancelled: throw AccountSetupError(.noPassword, error.reason)
            // Plain HTTP, another user, an answer that is not the flow's: refused.
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

    /// Most redirects of status.php followed (each approved by the user).
    static let maximumRedirects = 10
}

extension AccountSetup {
    /// One account per user and server: the URL asked for, the server it leads to, and the user
    /// the server names after a browser login are each checked with this.
    func refuseDuplicate(_ user: String, on server: String) async throws {
        if try await accounts.list().contains(where: { $0.server == server && $0.user == user }) {
            throw AccountSetupError(.duplicate, "\(user) on \(server) is already an account.")
        }
    }
}
