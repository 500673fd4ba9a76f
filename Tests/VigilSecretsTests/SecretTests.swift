import Foundation
import Testing

@testable import VigilSecrets

@Suite("Secret values, keys and errors")
struct SecretTests {
    @Test func aSecretNeverShowsItsValue() {
        let secret = Secret("hunter2-value")
        var dumped = ""
        dump(secret, to: &dumped)
        let renderings = [
            "\(secret)", String(describing: secret), String(reflecting: secret), dumped,
            "\([secret])", "\(Optional(secret) as Any)", "\(Mirror(reflecting: secret).children.map { "\($0)" })",
        ]
        for text in renderings {
            #expect(!text.contains("hunter2"), "shown: \(text)")
        }
        #expect("\(secret)" == "«secret»")
        #expect(secret.withValue { $0 } == "hunter2-value")
    }

    @Test(arguments: ["", "a\nb", "tab\there", String(repeating: "x", count: 1025), "del\u{7F}"])
    func badAccountsAreRefused(account: String) {
        #expect(throws: SecretStoreError.self) { try SecretKey(account: account, kind: .password) }
    }

    @Test func aKeyReadsAsKindAndAccount() throws {
        #expect(try SecretKey(account: "alice@cloud.test", kind: .refreshToken).description == "refresh-token of alice@cloud.test")
    }

    /// Classified by the constants of libsecret's and GLib's own headers, looked up by the quark
    /// names the libraries register: libsecret's domain is "secret-error" (a hand-written table
    /// once had "secret-error-quark", and reported a locked keyring as a plain failure).
    @Test func glibErrorsBecomeCodes() throws {
        try #require(KeyringSecretStore.loadProblem == nil, "libsecret is installed where the tests run")
        #expect(KeyringSecretStore.code(domain: "secret-error", code: 2) == .locked)
        #expect(KeyringSecretStore.code(domain: "secret-error-quark", code: 2) == .failed, "no such domain")
        #expect(KeyringSecretStore.code(domain: "g-io-error-quark", code: 19) == .denied)
        #expect(KeyringSecretStore.code(domain: "g-dbus-error-quark", code: 2) == .unavailable)
        #expect(KeyringSecretStore.code(domain: "g-io-error-quark", code: 15) == .unavailable)
        #expect(KeyringSecretStore.code(domain: "g-spawn-exit-error-quark", code: 1) == .unavailable)
        #expect(KeyringSecretStore.code(domain: "secret-error", code: 1) == .failed)
    }

    @Test func memoryStoreBehavesLikeAStore() throws {
        let store = MemorySecretStore()
        let key = try SecretKey(account: "bob@cloud.test", kind: .password)
        #expect(try store.secret(for: key) == nil)
        try store.store(Secret("pw"), for: key)
        try store.store(Secret("pw2"), for: SecretKey(account: "carol@cloud.test", kind: .clientSecret))
        #expect(try store.secret(for: key) == Secret("pw"))
        #expect(try store.accounts(kind: .password) == ["bob@cloud.test"])
        #expect(try store.accounts(kind: nil) == ["bob@cloud.test", "carol@cloud.test"])
        #expect(try store.remove(key))
        #expect(try store.remove(key) == false)
    }
}
