import FoundationEssentials
import Synchronization
public import VigilHTTP
public import VigilSecrets
import VigilText

/// The passwords of proxies that ask who you are (`vigil proxy login`), kept in the keyring: one
/// item per proxy, under its scheme, host and port, holding the user, the password and whether
/// the user agreed to a scheme that shows the password (`--allow-clear-text`). Never in a file.
public struct ProxyCredentials: Sendable {
    /// The keyring item's kind.
    public static let kind = SecretKey.Kind(rawValue: "proxy-password")
    /// Where the credentials are kept.
    public let secrets: any SecretStore
    private let cache = Cache()

    /// Credentials kept in `secrets`.
    public init(secrets: any SecretStore) { self.secrets = secrets }

    /// What `vigil proxy list` shows of one credential: never the password.
    public struct Entry: Sendable, Hashable {
        /// The proxy.
        public var proxy: String
        /// The user.
        public var user: String
        /// The user agreed to Basic over a plain-http proxy (or SOCKS5's clear-text login).
        public var allowsClearText: Bool
    }

    private struct Stored: Codable {
        var user: String
        var password: String
        var allowClearText: Bool
    }

    private final class Cache: Sendable {
        let entries = Mutex<[ProxyIdentity: ProxyCredential?]>([:])
    }

    static func key(_ proxy: ProxyIdentity) throws -> SecretKey { try SecretKey(account: "proxy " + proxy.description, kind: kind) }

    /// Keeps `credential` for `proxy` (replacing one kept before).
    public func store(_ credential: ProxyCredential, for proxy: ProxyIdentity) throws {
        let stored = Stored(user: credential.user, password: credential.password, allowClearText: credential.allowsClearText)
        let text = String(decoding: try JSONEncoder().encode(stored), as: UTF8.self)
        try secrets.store(Secret(text), for: try Self.key(proxy))
    }

    /// Removes the credential kept for `proxy`; false when there was none.
    public func remove(_ proxy: ProxyIdentity) throws -> Bool { try secrets.remove(try Self.key(proxy)) }

    /// The credential kept for `proxy`, nil when none.
    public func credential(for proxy: ProxyIdentity) throws -> ProxyCredential? {
        guard let secret = try secrets.secret(for: try Self.key(proxy)) else { return nil }
        return try secret.withValue { text in
            guard let stored = try? JSONDecoder().decode(Stored.self, from: Data(text.utf8)) else {
                throw SecretStoreError(.invalidSecret, "The keyring item of the proxy \(proxy) is not one Vigil wrote.")
            }
            return ProxyCredential(user: stored.user, password: stored.password, allowsClearText: stored.allowClearText)
        }
    }

    /// Every proxy with a kept credential, sorted.
    public func list() throws -> [Entry] {
        try secrets.accounts(kind: Self.kind).sorted().compactMap { account in
            guard account.hasPrefix("proxy "), let proxy = ProxyIdentity(url: String(account.dropFirst(6))), let credential = try credential(for: proxy) else {
                return nil
            }
            return Entry(proxy: proxy.description, user: credential.user, allowsClearText: credential.allowsClearText)
        }
    }

    /// The lookup the HTTP client asks (on a transfer's own thread): each proxy once per process.
    public var lookup: @Sendable (ProxyIdentity) throws -> ProxyCredential? {
        let cache = self.cache
        let store = self
        return { proxy in
            if let known = cache.entries.withLock({ $0[proxy] }) { return known }
            let found = try store.credential(for: proxy)
            cache.entries.withLock { $0[proxy] = found }
            return found
        }
    }
}
