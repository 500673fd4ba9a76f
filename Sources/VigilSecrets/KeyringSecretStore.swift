import CSecret
import VigilThreads

/// Secrets in the user's keyring, through the Secret Service D-Bus API (GNOME Keyring, KeePassXC,
/// KWallet's bridge) with libsecret. Each secret is an item of the schema `org.vigil.Secret` with
/// the attributes `account` and `kind`, in the default collection. Nothing is written to disk by
/// Vigil; how the keyring stores items is the keyring's business (encrypted under its password).
public struct KeyringSecretStore: SecretStore {
    /// A store on the user's keyring; libsecret is loaded only at the first call.
    public init() {}

    /// libsecret loaded (on first use: it is not linked), or why not.
    static let loadProblem: String? = vigil_secret_load_error().map {
        "libsecret cannot be loaded (\(String(cString: $0))); install libsecret-1-0"
    }

    static func requireLibrary() throws {
        // libsecret's calls wait on D-Bus (and on an unlock prompt): never on the pool's threads.
        BlockingQueue.checkNotOnCooperativePool("a keyring call (libsecret)")
        if let loadProblem = Self.loadProblem { throw SecretStoreError(.unavailable, loadProblem) }
    }

    /// libsecret loaded and the Secret Service session open, on the keyring's queue; an error
    /// here is left for the call that needs the keyring to report.
    public func warmUp() async {
        _ = try? await BlockingQueue.keyring.run { vigil_secret_warm_up() }
    }

    /// Stores or replaces the secret under `key`, labelled "Vigil: kind for account".
    /// Throws `SecretStoreError` (`.invalidSecret` for a value with a NUL byte; `.unavailable` without libsecret).
    public func store(_ secret: Secret, for key: SecretKey) throws {
        try Self.requireLibrary()
        try secret.withValue { value in
            guard !value.utf8.contains(0) else {
                throw SecretStoreError(.invalidSecret, "A secret cannot contain a NUL byte.")
            }
            let label = "Vigil: \(key.kind.rawValue) for \(key.account)"
            var error: OpaquePointer?
            let stored = key.account.withCString { account in
                key.kind.rawValue.withCString { kind in
                    label.withCString { label in
                        value.withCString { value in vigil_secret_store(account, kind, label, value, &error) }
                    }
                }
            }
            if stored == 0 { throw Self.storeError(error, action: "store the \(key)") }
        }
    }

    /// The secret under `key`, or nil when the keyring has none; throws `SecretStoreError` when it cannot be read.
    public func secret(for key: SecretKey) throws -> Secret? {
        try Self.requireLibrary()
        var error: OpaquePointer?
        let found = key.account.withCString { account in
            key.kind.rawValue.withCString { kind in vigil_secret_lookup(account, kind, &error) }
        }
        // libsecret wipes its copy before freeing it, also when an error came with one.
        defer { if let found { vigil_secret_password_free(found) } }
        if let error { throw Self.storeError(error, action: "read the \(key)") }
        guard let found else {
            // A locked collection gives nothing (its unlock prompt failed or was not shown, as in
            // a timer's session): that is a locked keyring, never a missing secret.
            if try state(of: key) == .locked {
                throw SecretStoreError(.locked, "it holds the \(key), but nobody unlocked it in this session")
            }
            return nil
        }
        return Secret(String(cString: found))
    }

    /// Found by a search on the item's attributes (which matches in a locked collection too, where
    /// GNOME Keyring keeps them hashed), and the item's own Locked property: no secret is read,
    /// no prompt is shown.
    public func state(of key: SecretKey) throws -> SecretState {
        try Self.requireLibrary()
        var error: OpaquePointer?
        let state = key.account.withCString { account in key.kind.rawValue.withCString { kind in vigil_secret_item_state(account, kind, &error) } }
        if state < 0 { throw Self.storeError(error, action: "look for the \(key)") }
        return state == 2 ? .locked : state == 1 ? .stored : .missing
    }

    /// Removes the secret under `key`; true when there was one. Throws `SecretStoreError`.
    @discardableResult
    public func remove(_ key: SecretKey) throws -> Bool {
        try Self.requireLibrary()
        var error: OpaquePointer?
        let removed = key.account.withCString { account in
            key.kind.rawValue.withCString { kind in vigil_secret_clear(account, kind, &error) }
        }
        if let error { throw Self.storeError(error, action: "remove the \(key)") }
        return removed != 0
    }

    /// The accounts with a secret of `kind` (any kind when nil), sorted and without duplicates;
    /// the search is tried up to three times when an item vanishes under it. Throws `SecretStoreError`.
    public func accounts(kind: SecretKey.Kind?) throws -> [String] {
        try Self.requireLibrary()
        var error: OpaquePointer?
        var list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        // An item removed by another process between the search and the reading of its attributes
        // fails the whole search ("No such secret item"): search again, a few times.
        for attempt in 1...3 {
            if let previous = error {
                vigil_secret_error_free(previous)
                error = nil
            }
            if let kind {
                list = kind.rawValue.withCString { vigil_secret_accounts($0, &error) }
            } else {
                list = vigil_secret_accounts(nil, &error)
            }
            if error == nil || attempt == 3 || vigil_secret_error_kind(error) == VIGIL_SECRET_LOCKED {
                break
            }
        }
        if let error { throw Self.storeError(error, action: "list the accounts") }
        guard let list else { return [] }
        defer { vigil_secret_strings_free(list) }
        var accounts: Set<String> = []
        var index = 0
        while let account = list[index] {
            accounts.insert(String(cString: account))
            index += 1
        }
        return accounts.sorted()
    }

    /// The store's error for a GError (which it frees): its code decided by GLib's error domain.
    static func storeError(_ error: OpaquePointer?, action: String) -> SecretStoreError {
        guard let error else { return SecretStoreError(.failed, "The Secret Service did not \(action) and gave no reason.") }
        defer { vigil_secret_error_free(error) }
        let message = String(cString: vigil_secret_error_message(error))
        return SecretStoreError(Self.code(vigil_secret_error_kind(error)), "Cannot \(action): \(message)")
    }

    /// The store's code for an error named by its GLib domain and code, classified by the
    /// constants in libsecret's and GLib's headers (SECRET_ERROR_IS_LOCKED, G_IO_ERROR_CANCELLED:
    /// a dismissed prompt; D-Bus, I/O and spawn errors: no Secret Service reachable).
    static func code(domain: String, code: Int32) -> SecretStoreError.Code {
        Self.code(vigil_secret_classify(domain, code))
    }

    static func code(_ failure: vigil_secret_failure) -> SecretStoreError.Code {
        switch failure {
        case VIGIL_SECRET_LOCKED: return .locked
        case VIGIL_SECRET_DENIED: return .denied
        case VIGIL_SECRET_UNAVAILABLE: return .unavailable
        default: return .failed
        }
    }
}
