public import Foundation
public import GRDB

/// An account: a user on a server, and the authentication method it logs in with. Its secret
/// (password or token) is in the keyring, never here.
public struct Account: Sendable, Hashable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "account"

    public var id: String
    /// The server's base URL, as confirmed during setup (for example `https://cloud.example.com`).
    public var server: String
    public var user: String
    /// The authentication method's identifier (`com.owncloud.basicauth`, ...).
    public var method: String
    public var createdAt: Date

    public init(id: String = UUID().uuidString, server: String, user: String, method: String, createdAt: Date = Date()) {
        self.id = id
        self.server = server
        self.user = user
        self.method = method
        self.createdAt = createdAt
    }

    /// How its secret is named in the keyring.
    public var secretAccount: String { "\(user)@\(server)" }
}
