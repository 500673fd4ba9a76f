public import FoundationEssentials
import Glibc

/// An account: a user on a server, and the authentication method it logs in with. Its secret
/// (password or token) is in the keyring, never here.
public struct Account: Sendable, Hashable, Codable {

    /// The account's identifier (a UUID string unless given).
    public var id: String
    /// The server's base URL, as confirmed during setup (for example `https://cloud.example.com`).
    public var server: String
    /// The user name on the server.
    public var user: String
    /// The authentication method's identifier (`com.owncloud.basicauth`, ...).
    public var method: String
    /// When the account was set up.
    public var createdAt: Date
    /// The certificate chain the user reviewed when the account was set up, as the server sent it
    /// (PEM, leaf first): the bookmark certificate of the renewal rules; nil for accounts set up
    /// before Vigil kept it.
    public var reviewedChainPEM: String?
    /// OAuth2 and OpenID Connect: the client the tokens were issued to (registered for this
    /// account, or configured), the endpoints that refresh and revoke them, and when the access
    /// token expires. None of these is a secret.
    public var clientID: String?
    /// OAuth2 and OpenID Connect: the token endpoint that refreshes the tokens.
    public var tokenEndpoint: String?
    /// OAuth2 and OpenID Connect: the endpoint that revokes the tokens (RFC 7009).
    public var revocationEndpoint: String?
    /// OAuth2 and OpenID Connect: when the access token expires.
    public var tokenExpiresAt: Date?
    /// The server refused the stored credentials (a rejected refresh, a changed password): the
    /// account needs `vigil account login` before it is used again.
    public var needsLogin = false
    /// Set while setup is keeping the account's secrets (the row is written first, then the
    /// keyring, then this is cleared): a row still pending after a crash is not an account, and
    /// `AccountRegistry` removes it with whatever secrets it got.
    public var pendingSince: Date?
    /// A name the user gave the account (`vigil account rename`), unique; nil: none.
    public var label: String?
    /// OpenID Connect: the provider (`iss`) and the user's `sub` there, the stable identity every
    /// later login must match; nil for other methods.
    public var issuer: String?
    /// OpenID Connect: the user's `sub` at ``issuer``.
    public var subject: String?
    /// Mutual TLS: the account's client certificate and its chain (PEM, certificate first),
    /// presented only to the account's server; its private key is in the keyring (kind
    /// `client-key`), never here. nil: none.
    public var clientCertificatePEM: String?
    /// An access proxy's service token: the names of the access headers (comma-separated) every
    /// request to the server carries; their values are in the keyring (kind `access-headers`).
    /// nil: none.
    public var accessHeaderNames: String?
    /// OAuth2 and OpenID Connect: set just before a refresh token is sent, cleared once the answer
    /// is kept (or the provider answered without taking it). Still set when a refresh begins, it
    /// says an earlier one was interrupted after the token may have reached the provider: that
    /// token is never presented again (a provider with reuse detection would revoke the whole
    /// family), and the account needs a login.
    public var refreshStartedAt: Date?
    /// OAuth2 and OpenID Connect: the provider issued no refresh token, so when the access token
    /// expires (``tokenExpiresAt``) the account must log in again.
    public var noRefreshToken = false
    /// The CA certificates (PEM) the account was set up to trust (`--ca-file` at setup: the
    /// certificates, not the path): every later command judges the account's server against
    /// them, as setup did, instead of the command's own anchors. nil: the system store.
    public var trustAnchorsPEM: String?

    /// An account with a new UUID and the current time unless given; not pending, no label.
    public init(
        id: String = UUID().uuidString, server: String, user: String, method: String, createdAt: Date = Date(), reviewedChainPEM: String? = nil,
        clientID: String? = nil, tokenEndpoint: String? = nil, revocationEndpoint: String? = nil, tokenExpiresAt: Date? = nil
    ) {
        self.id = id
        self.server = server
        self.user = user
        self.method = method
        self.createdAt = createdAt
        self.reviewedChainPEM = reviewedChainPEM
        self.clientID = clientID
        self.tokenEndpoint = tokenEndpoint
        self.revocationEndpoint = revocationEndpoint
        self.tokenExpiresAt = tokenExpiresAt
    }

    /// How its secret is named in the keyring.
    public var secretAccount: String { "\(user)@\(server)" }
}

extension Account: StoredValue {
    static var databaseTableName: String { "account" }

    static let columns = [
        "id", "server", "user", "method", "createdAt", "reviewedChainPEM", "clientID", "tokenEndpoint", "revocationEndpoint", "tokenExpiresAt",
        "needsLogin", "pendingSince", "label", "issuer", "subject", "clientCertificatePEM", "accessHeaderNames", "refreshStartedAt",
        "noRefreshToken", "trustAnchorsPEM",
    ]

    init(row: StoredRow) throws {
        self.init(
            id: try row.string(0), server: try row.string(1), user: try row.string(2), method: try row.string(3), createdAt: try row.requiredDate(4),
            reviewedChainPEM: row.optionalString(5), clientID: row.optionalString(6), tokenEndpoint: row.optionalString(7),
            revocationEndpoint: row.optionalString(8), tokenExpiresAt: try row.optionalDate(9))
        needsLogin = row.integer(10) != 0
        pendingSince = try row.optionalDate(11)
        label = row.optionalString(12)
        issuer = row.optionalString(13)
        subject = row.optionalString(14)
        clientCertificatePEM = row.optionalString(15)
        accessHeaderNames = row.optionalString(16)
        refreshStartedAt = try row.optionalDate(17)
        noRefreshToken = row.integer(18) != 0
        trustAnchorsPEM = row.optionalString(19)
    }

    var values: [SQLiteValue] {
        [
            .text(id), .text(server), .text(user), .text(method), SQLiteValue(createdAt), SQLiteValue(reviewedChainPEM), SQLiteValue(clientID),
            SQLiteValue(tokenEndpoint), SQLiteValue(revocationEndpoint), SQLiteValue(tokenExpiresAt), SQLiteValue(needsLogin),
            SQLiteValue(pendingSince), SQLiteValue(label), SQLiteValue(issuer), SQLiteValue(subject), SQLiteValue(clientCertificatePEM),
            SQLiteValue(accessHeaderNames), SQLiteValue(refreshStartedAt),
            SQLiteValue(noRefreshToken), SQLiteValue(trustAnchorsPEM),
        ]
    }
}
