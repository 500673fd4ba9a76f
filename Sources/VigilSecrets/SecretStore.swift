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
    /// What the store holds under `key`, found without reading the secret and without asking
    /// to unlock anything: a locked keyring is `.locked`, never "missing".
    func state(of key: SecretKey) throws -> SecretState
    /// Gets ready for the calls to come (a keyring: its library loaded, its session open) without
    /// reading a secret or asking anything; a command starts it beside work that does not need
    /// the store yet. Nothing by default.
    func warmUp() async
}

/// What a store holds under a key, without the secret.
public enum SecretState: String, Sendable, Codable {
    /// The secret is there and can be read.
    case stored
    /// The secret is there, in a keyring that is locked: nothing can be read until it is unlocked.
    case locked
    /// No secret under the key.
    case missing
}

extension SecretStore {
    /// Reads the secret to tell (a store without a lock).
    public func state(of key: SecretKey) throws -> SecretState {
        try secret(for: key) == nil ? .missing : .stored
    }

    /// Does nothing: a store without a warm-up.
    public func warmUp() async {}
}
