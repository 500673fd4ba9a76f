import FoundationEssentials
import Glibc
import Synchronization

/// A ``SecretStore`` in memory, for unit tests of modules that take a store. Never for real secrets.
public final class MemorySecretStore: SecretStore {
    private let secrets = Mutex<[SecretKey: Secret]>([:])

    /// An empty store.
    public init() {}

    /// Stores or replaces the secret under `key`; never throws.
    public func store(_ secret: Secret, for key: SecretKey) throws {
        secrets.withLock { $0[key] = secret }
    }

    /// The secret under `key`, or nil when there is none; never throws.
    public func secret(for key: SecretKey) throws -> Secret? {
        secrets.withLock { $0[key] }
    }

    /// Removes the secret under `key`; true when there was one. Never throws.
    @discardableResult
    public func remove(_ key: SecretKey) throws -> Bool {
        secrets.withLock { $0.removeValue(forKey: key) != nil }
    }

    /// The accounts with a secret of `kind` (any kind when nil), sorted, without duplicates; never throws.
    public func accounts(kind: SecretKey.Kind?) throws -> [String] {
        secrets.withLock { Set($0.keys.filter { kind == nil || $0.kind == kind }.map(\.account)).sorted() }
    }
}
