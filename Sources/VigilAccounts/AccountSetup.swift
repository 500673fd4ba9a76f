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
        guard requested.lowercased().hasPrefix("https://"), let firstEndpoint = try? Endpoint(url: requested) else {
            throw AccountSetupError(.invalidURL, "\(server) is not an https URL; accounts are added over https only.")
        }
        if plain { await carryCredentials(from: server, to: firstEndpoint, interaction: interaction) }
        guard !user.isEmpty, !user.contains(":"), !user.contains("/") else {
            throw AccountSetupError(.invalidURL, "The user name must be non-empty, without ':' or '/'.")
        }
        try await refuseDuplicate(user, on: requested)

        // 1-2. Each server in the chain: its certificate reviewed before anything is sent to it,
        // then status.php. A redirect of status.php to another server's status.php may be
        // approved; the setup then starts again at the new server, with nothing carried over.
        var base = requested
        var endpoint = firstEndpoint
        var client: HTTPClient
        var reviewedChain: [Certificate] = []
        var product: String?
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
                product = JSONValue.parseObject(status.body)?["productname"]?.string
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
            guard let next = try? Endpoint(url: target) else {
                throw AccountSetupError(.invalidURL, "The redirect target \(target) is not an https URL.", redirect: redirect)
            }
            await carryCredentials(from: base, to: next, interaction: interaction)
            base = target
            endpoint = next
            hops += 1
        }
        try await refuseDuplicate(user, on: base)

        do {
            await interaction.progress("\(base) is \(Self.productPhrase(product)) server.")

            // 3. Which method?
            var detection = try await AuthenticationDetector(client: client, paths: options.paths, logger: logger).detect(server: base, product: product)
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

            // 5. The login, proved on the user's files before anything is kept.
            let context = AuthenticationContext(server: base, user: user, client: client, detection: detection, settings: options.authentication(for: base))
            let started = Date()
            let login = try await Self.mapped { try await method.logIn(context, interaction: interaction) }
            // After a browser login the server says who logged in (the user typed a login hint);
            // it must be the user asked for, and the account is named as the server names them.
            let serverUser = method.usesTokens ? try await loggedInUser(login, base: base, expected: user, client: client) : user
            if serverUser != user { try await refuseDuplicate(serverUser, on: base) }
            try await checkFiles(login, base: base, user: serverUser, client: client, newToken: method.usesTokens)
            var account = Account(
                server: base, user: serverUser, method: method.identifier.rawValue, reviewedChainPEM: Self.pem(reviewedChain),
                clientID: login.clientID, tokenEndpoint: login.tokenEndpoint, revocationEndpoint: login.revocationEndpoint,
                tokenExpiresAt: AccountTokens.expiry(expiresIn: login.expiresIn, override: options.tokenLifetimeOverride, from: started))
            account.issuer = login.issuer
            account.subject = login.subject
            account.noRefreshToken = method.usesTokens && login.secrets[.refreshToken] == nil
            account.trustAnchorsPEM = options.trustAnchorsPEM
            var secrets = login.secrets
            // The client certificate and access headers are kept only for the origin they go to.
            if let identity = options.clientIdentity, let origin = try? Endpoint(url: base), options.credentialsOrigin?.isSameOrigin(as: origin) == true {
                account.clientCertificatePEM = Self.pem(identity.chain)
                secrets[.clientKey] = identity.key.withStoredForm { Secret($0) }
            }
            if let headers = options.accessHeaders, let origin = try? Endpoint(url: base), options.credentialsOrigin?.isSameOrigin(as: origin) == true {
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
