/// Where a secret belongs: an account and the kind of secret. One secret per key.
public struct SecretKey: Sendable, Hashable, CustomStringConvertible {
    /// What the secret is.
    public struct Kind: RawRepresentable, Sendable, Hashable {
        /// The kind's name (`password`, `access-token`), also stored as the keyring item's `kind` attribute.
        public let rawValue: String
        /// A kind named `rawValue`; not checked here (``SecretKey/init(account:kind:)`` checks it).
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A password for Basic authentication.
        public static let password = Kind(rawValue: "password")
        /// An OAuth2/OIDC access token.
        public static let accessToken = Kind(rawValue: "access-token")
        /// An OAuth2/OIDC refresh token.
        public static let refreshToken = Kind(rawValue: "refresh-token")
        /// A client secret from dynamic client registration.
        public static let clientSecret = Kind(rawValue: "client-secret")
        /// The private key of the account's client certificate (mutual TLS), as PKCS#8 PEM.
        public static let clientKey = Kind(rawValue: "client-key")
        /// An access proxy's service token: the account's access headers as `Name: value` lines.
        public static let accessHeaders = Kind(rawValue: "access-headers")
        /// The kinds Vigil's own methods keep (a plug-in method may add others).
        public static let allKinds: [Kind] = [.password, .accessToken, .refreshToken, .clientSecret, .clientKey, .accessHeaders]
    }

    /// The account's identifier (for example `alice@cloud.example.com`); not secret, but private.
    public var account: String
    /// What the secret under this key is.
    public var kind: Kind

    /// Refuses an empty or over-long account or kind, and any control character in them.
    public init(account: String, kind: Kind) throws {
        for (field, text) in [("account", account), ("kind", kind.rawValue)] {
            guard !text.isEmpty, text.utf8.count <= 1024, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw SecretStoreError(.invalidKey, "The \(field) of a secret must be 1 to 1024 bytes without control characters.")
            }
        }
        self.account = account
        self.kind = kind
    }

    /// The key in words (`password of alice@cloud.example.com`); holds no secret.
    public var description: String { "\(kind.rawValue) of \(account)" }
}
