import Foundation
import Synchronization

/// A ``SecretStore`` in memory, for unit tests of modules that take a store. Never for real secrets.
public final class MemorySecretStore: SecretStore {
    private let secrets = Mutex<[SecretKey: Secret]>([:])

    public init() {}

    public func store(_ secret: Secret, for key: SecretKey) throws {
        secrets.withLock { $0[key] = secret }
    }

    public func secret(for key: SecretKey) throws -> Secret? {
        secrets.withLock { $0[key] }
    }

    @discardableResult
    public func remove(_ key: SecretKey) throws -> Bool {
        secrets.withLock { $0.removeValue(forKey: key) != nil }
    }

    public func accounts(kind: SecretKey.Kind?) throws -> [String] {
        secrets.withLock { Set($0.keys.filter { kind == nil || $0.kind == kind }.map(\.account)).sorted() }
    }
}
