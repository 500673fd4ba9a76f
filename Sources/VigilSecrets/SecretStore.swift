/// Where Vigil keeps secrets. ``KeyringSecretStore`` is the real one (the Secret Service through
/// libsecret); ``MemorySecretStore`` is for unit tests of the modules that use a store.
/// Calls block (the keyring answers over D-Bus): make them off latency-sensitive threads.
public protocol SecretStore: Sendable {
    /// Stores or replaces the secret under `key`.
    func store(_ secret: Secret, for key: SecretKey) throws
    /// The secret under `key`, or nil when there is none.
    func secret(for key: SecretKey) throws -> Secret?
    /// Removes the secret under `key`; true when there was one.
    @discardableResult
    func remove(_ key: SecretKey) throws -> Bool
    /// The accounts holding a secret of `kind` (any kind when nil), sorted, without duplicates.
    func accounts(kind: SecretKey.Kind?) throws -> [String]
    /// Gets ready for the calls to come (a keyring: its library loaded, its session open) without
    /// reading a secret or asking anything; a command starts it beside work that does not need
    /// the store yet. Nothing by default.
    func warmUp() async
}

extension SecretStore {
    /// Does nothing: a store without a warm-up.
    public func warmUp() async {}
}
