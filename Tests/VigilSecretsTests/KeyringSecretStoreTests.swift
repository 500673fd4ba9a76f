import Foundation
import Testing
import VigilSecrets
import VigilTestSupport

/// The keyring tests need a real Secret Service: `make test` runs them inside
/// `dbus-run-session -- scripts/keyring-session.sh`, which sets KEYRING_SESSION_DIR.
enum Keyring {
    static let directory = TestPaths.keyringDirectory
    static let available = TestPaths.hasKeyring
    /// A key no other test run uses.
    static func key(_ kind: SecretKey.Kind = .password, account: String = "alice@cloud-\(UUID().uuidString).test") throws -> SecretKey {
        try SecretKey(account: account, kind: kind)
    }
}

@Suite(
    "Keyring secret store (real Secret Service)", .serialized,
    .enabled(if: Keyring.available, "needs a Secret Service: run `make test` (dbus-run-session + gnome-keyring)"))
struct KeyringSecretStoreTests {
    let store = KeyringSecretStore()

    @Test func storeReadReplaceRemove() throws {
        let key = try Keyring.key()
        #expect(try store.secret(for: key) == nil)
        try store.store(Secret("first password"), for: key)
        #expect(try store.secret(for: key) == Secret("first password"))
        try store.store(Secret("second password"), for: key)
        #expect(try store.secret(for: key) == Secret("second password"), "a second store replaces, it does not add")
        #expect(try store.remove(key))
        #expect(try store.secret(for: key) == nil)
        #expect(try store.remove(key) == false, "nothing left to remove")
    }

    @Test func accountsAndKindsAreSeparate() throws {
        let alice = try Keyring.key(.password)
        let aliceToken = try SecretKey(account: alice.account, kind: .refreshToken)
        let bob = try Keyring.key(.password)
        try store.store(Secret("alice-pw"), for: alice)
        try store.store(Secret("alice-refresh"), for: aliceToken)
        try store.store(Secret("bob-pw"), for: bob)
        defer { for key in [alice, aliceToken, bob] { _ = try? store.remove(key) } }
        #expect(try store.secret(for: alice) == Secret("alice-pw"))
        #expect(try store.secret(for: aliceToken) == Secret("alice-refresh"))
        #expect(try store.secret(for: bob) == Secret("bob-pw"))
        let withRefresh = try store.accounts(kind: .refreshToken)
        #expect(withRefresh.contains(alice.account) && !withRefresh.contains(bob.account))
        let all = try store.accounts(kind: nil)
        #expect(all.contains(alice.account) && all.contains(bob.account))
        #expect(all.filter { $0 == alice.account }.count == 1, "an account with two secrets is listed once")
    }

    @Test func unicodeAndLongSecretsSurviveNULIsRefused() throws {
        let key = try Keyring.key(.accessToken)
        defer { _ = try? store.remove(key) }
        let long = String(repeating: "eyJhbGciOiJFUzI1NiJ9.", count: 400) + "ß✓🔑"
        try store.store(Secret(long), for: key)
        #expect(try store.secret(for: key) == Secret(long))
        #expect(throws: SecretStoreError(.invalidSecret, "A secret cannot contain a NUL byte.")) {
            try store.store(Secret("before\u{0}after"), for: key)
        }
        #expect(try store.secret(for: key) == Secret(long), "a refused secret leaves the stored one")
    }

    /// The keyring writes its file encrypted under the unlock password: the secret's bytes are in
    /// no file of the keyring's directory, though the item was written there.
    @Test func noPlaintextOnDisk() throws {
        let directory = try #require(Keyring.directory)
        let marker = "vigil-plaintext-probe-\(UUID().uuidString)"
        let key = try Keyring.key(account: "\(marker)@accounts.test")
        let before = Self.files(in: directory)
        try store.store(Secret(marker + "-SECRET"), for: key)
        defer { _ = try? store.remove(key) }
        // gnome-keyring writes its file shortly after the call returns.
        var after = Self.files(in: directory)
        for _ in 0..<50 where after == before {
            Thread.sleep(forTimeInterval: 0.1)
            after = Self.files(in: directory)
        }
        #expect(after != before, "the item was written to the keyring's files")
        for path in after.keys {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(bytes.range(of: Data((marker + "-SECRET").utf8)) == nil, "\(path) holds the secret in plain text")
        }
    }

    /// Path and contents of every file below `directory`.
    static func files(in directory: String) -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let relative = enumerator?.nextObject() as? String {
            let path = (directory as NSString).appendingPathComponent(relative)
            if let data = FileManager.default.contents(atPath: path) { files[path] = data }
        }
        return files
    }
}
