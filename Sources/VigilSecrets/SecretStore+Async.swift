import VigilThreads

/// The store's calls for async code, on the keyring's own queue (``VigilThreads/BlockingQueue/keyring``):
/// a keyring answers over D-Bus and may wait for the user to unlock it, which must not hold a
/// thread of Swift's cooperative pool. In an async function Swift picks these over the blocking
/// forms, so a call without `await` does not compile.
extension SecretStore {
    /// Stores or replaces the secret under `key`, on the keyring's queue.
    public func store(_ secret: Secret, for key: SecretKey) async throws {
        try await BlockingQueue.keyring.run { try self.store(secret, for: key) }
    }

    /// The secret under `key`, or nil when there is none, read on the keyring's queue.
    public func secret(for key: SecretKey) async throws -> Secret? {
        try await BlockingQueue.keyring.run { try self.secret(for: key) }
    }

    /// Removes the secret under `key` on the keyring's queue; true when there was one.
    @discardableResult
    public func remove(_ key: SecretKey) async throws -> Bool {
        try await BlockingQueue.keyring.run { try self.remove(key) }
    }

    /// The accounts with a secret of `kind` (any kind when nil), listed on the keyring's queue.
    public func accounts(kind: SecretKey.Kind?) async throws -> [String] {
        try await BlockingQueue.keyring.run { try self.accounts(kind: kind) }
    }

    /// What the store holds under `key` (no secret read, no prompt), asked on the keyring's queue.
    public func state(of key: SecretKey) async throws -> SecretState {
        try await BlockingQueue.keyring.run { try self.state(of: key) }
    }
}
