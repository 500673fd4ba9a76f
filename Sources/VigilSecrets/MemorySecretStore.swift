import Foundation

/// A ``SecretStore`` in memory, for unit tests of modules that take a store. Never for real secrets.
public final class MemorySecretStore: SecretStore, @unchecked Sendable {  // `secrets` guarded by `lock`
    private let lock = NSLock()
    private var secrets: [SecretKey: Secret] = [:]

    public init() {}

    public func store(_ secret: Secret, for key: SecretKey) throws {
        lock.lock()
        defer { lock.unlock() }
        secrets[key] = secret
    }

    public func secret(for key: SecretKey) throws -> Secret? {
        lock.lock()
        defer { lock.unlock() }
        return secrets[key]
    }

    @discardableResult
    public func remove(_ key: SecretKey) throws -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return secrets.removeValue(forKey: key) != nil
    }

    public func accounts(kind: SecretKey.Kind?) throws -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return Set(secrets.keys.filter { kind == nil || $0.kind == kind }.map(\.account)).sorted()
    }
}
