public import FoundationEssentials
import Glibc
public import Logging
import VigilAuth
public import VigilHTTP
import VigilLogging
import VigilPaths
public import VigilSecrets
public import VigilStore
import VigilText
import VigilThreads

/// An OAuth2 or OpenID Connect account's access token over time: refreshed ahead of expiry (under
/// ``refreshMargin`` left) or when the server refused it, the rotated refresh token replacing the
/// old one. Concurrent `vigil` processes serialise on a per-account lock file and re-read the
/// keyring and the database once they hold it, so that a refresh token is used once (the seeds'
/// race). A network failure or an unavailable provider keeps the tokens (the user is never logged
/// out by an outage); a refused refresh marks the account as needing a login instead of retrying.
public struct AccountTokens: Sendable {
    /// The account rows (expiry and the needs-login mark are kept here).
    public var accounts: Accounts
    /// The keyring holding the access and refresh tokens.
    public var secrets: any SecretStore
    /// Reaches the token endpoint (trust-gated like every other request).
    public var client: HTTPClient
    /// Where the per-account lock files live (created 0700); nil: no lock (one process only).
    public var lockDirectory: String?
    /// `authentication-oauth2.oa2-client-secret`, when the client is confidential.
    public var clientSecret: Secret?
    /// `authentication-oauth2.oa2-expiration-override-seconds`: access tokens treated as expiring
    /// after this long, whatever the server said.
    public var lifetimeOverride: Int?
    /// The current time, for expiry; `Date()` by default.
    public var now: @Sendable () -> Date = { Date() }
    /// Where refreshes are logged.
    public var logger: Logger

    /// Refresh when less than this is left.
    public static let refreshMargin: TimeInterval = 120

    /// Tokens for these accounts, refreshed through `client`, locked under `lockDirectory` (nil: no lock).
    public init(accounts: Accounts, secrets: any SecretStore, client: HTTPClient, lockDirectory: String?, logger: Logger = Logger(label: "vigil.tokens")) {
        self.accounts = accounts
        self.secrets = secrets
        self.client = client
        self.lockDirectory = lockDirectory
        self.logger = logger
    }

    /// When a token that lives `expiresIn` seconds (as the server said) expires, after the override.
    /// A lifetime below zero is an expired token; one over ten years is taken as ten years (a
    /// server's absurd number is not a date to store).
    public static func expiry(expiresIn: Int?, override: Int?, from start: Date) -> Date? {
        (override ?? expiresIn).map { start.addingTimeInterval(TimeInterval(min(max($0, 0), 10 * 366 * 24 * 3600))) }
    }

    /// The access token to send now, refreshed first when it is about to expire, or when
    /// `refusedToken` is the one the server just refused (401). Throws
    /// ``AccountSetupError/Code/loginExpired`` when the account must log in again.
    public func accessToken(for account: Account, refusedToken: Secret? = nil) async throws -> Secret {
        guard !account.needsLogin else { throw Self.loginExpired(account, "its tokens can no longer be refreshed") }
        let accessKey = try SecretKey(account: account.secretAccount, kind: .accessToken)
        let seen = try await secrets.secret(for: accessKey)
        if refusedToken == nil, let seen, !isDue(account) { return seen }
        // No refresh token to renew it with: the access token is used until it really expires
        // (or the server refuses it), not given up two minutes early.
        if refusedToken == nil, let seen, account.noRefreshToken, account.tokenExpiresAt.map({ $0 > now() }) ?? true { return seen }
        return try await withLock(account) {
            // Another process may have refreshed while this one waited: read both stores again,
            // and take a token that changed meanwhile instead of spending the refresh token twice.
            let current = try await accounts.list().first { $0.id == account.id } ?? account
            guard !current.needsLogin else { throw Self.loginExpired(current, "its tokens can no longer be refreshed") }
            if let token = try await secrets.secret(for: accessKey), token != refusedToken, token != seen || !isDue(current) { return token }
            return try await refresh(current)
        }
    }

    func isDue(_ account: Account) -> Bool {
        guard let expiry = account.tokenExpiresAt else { return false }
        return expiry.timeIntervalSince(now()) < Self.refreshMargin
    }

    /// One refresh at the token endpoint; the new tokens stored, the expiry recorded (audited).
    func refresh(_ account: Account) async throws -> Secret {
        let refreshKey = try SecretKey(account: account.secretAccount, kind: .refreshToken)
        // The last login issued no refresh token: any one still in the keyring is an older
        // login's, and is never presented.
        let stored = account.noRefreshToken ? nil : try await secrets.secret(for: refreshKey)
        guard let refreshToken = stored, let endpoint = account.tokenEndpoint, let clientID = account.clientID else {
            try await accounts.updateTokens(id: account.id, expiresAt: nil, needsLogin: true, because: "no refresh token or token endpoint is stored")
            let when = account.tokenExpiresAt.map { " at \($0.formatted(.iso8601))" } ?? ""
            throw Self.loginExpired(account, "its access token expired\(when), and the provider issued no refresh token")
        }
        // An earlier refresh was interrupted (this process holds the lock: none is running) after its
        // token may have reached the provider: that token is never presented a second time.
        if account.refreshStartedAt != nil {
            try await accounts.updateTokens(
                id: account.id, expiresAt: nil, needsLogin: true, because: "an earlier refresh was interrupted; its refresh token is not presented twice")
            throw Self.loginExpired(
                account, "an earlier refresh was interrupted before its answer was kept, and its refresh token is never presented twice")
        }
        let tokenClient = OAuth2TokenClient(
            client: client, clientID: clientID, authentication: OAuth2ClientAuthentication.choose(secret: clientSecret, supported: nil))
        let started = now()
        let tokens: OAuth2Tokens
        try await accounts.startRefresh(id: account.id)
        do {
            tokens = try await tokenClient.refresh(refreshToken, at: endpoint)
        } catch let error as OAuth2Error where error.code == .refused || error.code == .invalidTokenResponse {
            try await accounts.updateTokens(id: account.id, expiresAt: nil, needsLogin: true, because: "the refresh was refused")
            logger.privacy.notice("The refresh of an account's tokens was refused on \(account.server); it needs a new login", metadata: ["tags": "tokens"])
            throw Self.loginExpired(account, "the provider refused its refresh token (expired or revoked: \(error.reason))")
        } catch {
            // The provider answered without taking the token (429, 503), or no byte of the
            // request left (no connection, no completed handshake, a refused certificate): it
            // stays good. Otherwise (a timeout, a connection dropped after the request, a 5xx that
            // may follow a rotation) it may have been taken: it is never presented again, and the
            // account needs a new login, said now.
            guard Self.tokenStayedHome(error) else {
                try await accounts.updateTokens(
                    id: account.id, expiresAt: nil, needsLogin: true, because: "the refresh token may have reached the provider without an answer")
                logger.privacy.notice(
                    "A refresh on \(account.server) got no usable answer after its token may have been sent; it needs a new login", metadata: ["tags": "tokens"]
                )
                throw Self.loginExpired(
                    account,
                    "the token endpoint gave no usable answer after the refresh token may have reached it (\(String(describing: error))); a refresh token that may be spent is never presented twice"
                )
            }
            do {
                try await accounts.endRefresh(id: account.id)
            } catch let markError {
                // Fails safe (the next refresh asks for a login), but not silently.
                logger.privacy.warning(
                    "The refresh mark of an account on \(account.server) could not be cleared (\(markError)); its next refresh will ask for a new login",
                    metadata: ["tags": "tokens"])
            }
            throw error
        }
        // A rotated refresh token replaces the old one (a provider that keeps it sends none). It is
        // kept first: the old one is spent now, and a process killed after this line still has a
        // refresh token that works; the access token and the expiry follow (until the expiry is
        // written, the next run sees the account due and refreshes again).
        if let rotated = tokens.refreshToken { try await secrets.store(rotated, for: refreshKey) }
        // The keyring now holds an unspent refresh token (the rotated one, or the old one a
        // provider without rotation keeps): a later refresh may present it.
        try await accounts.endRefresh(id: account.id)
        try await secrets.store(tokens.accessToken, for: try SecretKey(account: account.secretAccount, kind: .accessToken))
        try await accounts.updateTokens(
            id: account.id, expiresAt: Self.expiry(expiresIn: tokens.expiresIn, override: lifetimeOverride, from: started),
            needsLogin: false, because: tokens.refreshToken == nil ? "refreshed" : "refreshed, refresh token rotated")
        logger.privacy.info("Refreshed an account's tokens on \(account.server)", metadata: ["tags": "tokens"])
        return tokens.accessToken
    }

    /// Whether a failed refresh surely left its token unused: the provider said it did not
    /// process the request (429 Too Many Requests, 503 Service Unavailable), or no byte of the
    /// request left this machine (libcurl's word: ``HTTPError/requestMayHaveLeft`` false), or the
    /// error came before any transfer. A 500, 502 or 504 may come after the provider rotated the
    /// token (a gateway that lost the answer), and a connection that closed after the request
    /// may have carried it: the token may be spent.
    static func tokenStayedHome(_ error: any Error) -> Bool {
        if let error = error as? OAuth2Error { return error.code == .unavailable && [429, 503].contains(error.httpStatus ?? 0) }
        guard let error = error as? HTTPError else { return false }
        if let left = error.requestMayHaveLeft { return !left }
        let beforeSending: Set<HTTPError.Code> = [
            .invalidURL, .unresolvedHost, .connectionRefused, .notTLS, .handshakeFailed, .untrustedCertificate, .plainHTTPRefused,
            .clientCertificateRequired, .clientCertificateRefused, .proxy, .proxyAuthenticationRequired, .proxyAuthenticationRefused,
        ]
        return beforeSending.contains(error.code)
    }

    /// The account's login ran out (its refresh token expired, was revoked or cannot be used):
    /// log in again; nothing was deleted.
    static func loginExpired(_ account: Account, _ why: String) -> AccountSetupError {
        AccountSetupError(
            .loginExpired,
            "\(account.user) on \(account.server) must log in again: \(why). Run \(SuggestedCommand.line(["vigil", "account", "login", account.id])); nothing was deleted."
        )
    }

    /// Runs `body` holding the account's lock file (flock, exclusive), waiting for another process.
    func withLock<T: Sendable>(_ account: Account, _ body: () async throws -> T) async throws -> T {
        guard let lockDirectory else { return try await body() }
        try FileManager.default.createDirectory(atPath: lockDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = PathName.join(lockDirectory, "account-\(account.id).lock")
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AccountSetupError(.configuration, "Cannot open the lock file \(path): \(String(cString: strerror(errno))).") }
        defer { close(fd) }
        // flock blocks the thread: wait on one of its own, not on the cooperative pool.
        let locked = try await OwnThread.run(named: "vigil-lock") { flock(fd, LOCK_EX) == 0 }
        guard locked else { throw AccountSetupError(.configuration, "Cannot lock \(path): \(String(cString: strerror(errno))).") }
        defer { flock(fd, LOCK_UN) }
        return try await body()
    }
}
