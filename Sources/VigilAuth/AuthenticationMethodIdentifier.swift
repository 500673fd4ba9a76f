/// An authentication method, by the identifiers the ownCloud MDM settings use
/// (`connection.allowed-authentication-methods`, `connection.preferred-authentication-methods`).
public struct AuthenticationMethodIdentifier: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The identifier as the settings write it (`com.owncloud.oauth2`).
    public let rawValue: String
    /// The method named `rawValue`, known to Vigil or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// HTTP Basic with a user name and password.
    public static let basicAuth = AuthenticationMethodIdentifier(rawValue: "com.owncloud.basicauth")
    /// OAuth2 with the server's OAuth2 app (authorization code, PKCE, loopback redirect).
    public static let oauth2 = AuthenticationMethodIdentifier(rawValue: "com.owncloud.oauth2")
    /// OpenID Connect (discovery, dynamic client registration, id_token validation).
    public static let openIDConnect = AuthenticationMethodIdentifier(rawValue: "com.owncloud.openid-connect")
    /// Nextcloud's Login Flow v2 (the browser approves; an app password used with Basic).
    public static let loginFlowV2 = AuthenticationMethodIdentifier(rawValue: "com.nextcloud.login-flow-v2")

    /// The raw identifier.
    public var description: String { rawValue }
}
