import Foundation
import Testing
import VigilAccounts
import VigilSecrets
import VigilStore
import VigilTestSupport

/// An account is saved as a pending row, then its secrets, then marked complete: a setup killed
/// in between leaves no account (a pending row is not listed), and its leftovers, row and
/// secrets, are removed a minute later by the next setup.
@Suite("Interrupted account setup", .timeLimit(.minutes(3)))
struct InterruptedSetupTests {
    @Test func aPendingRowIsNoAccountAndIsRemovedWithItsSecrets() async throws {
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        let accounts = Accounts(database: database)
        let secrets = MemorySecretStore()
        let registry = AccountRegistry(accounts: accounts, secrets: secrets)
        let old = Account(server: "https://cloud.example.test", user: "alice", method: "com.owncloud.basicauth")
        try await accounts.add(old, pending: true, at: Date().addingTimeInterval(-120))
        try await secrets.store(Secret("alice-password"), for: SecretKey(account: old.secretAccount, kind: .password))
        let fresh = Account(server: "https://cloud.example.test", user: "bob", method: "com.owncloud.basicauth")
        try await accounts.add(fresh, pending: true)
        #expect(try await accounts.list().isEmpty, "a pending row is not an account")

        #expect(try await registry.removeInterrupted() == 1, "only the setup pending for over a minute")
        #expect(try await secrets.secret(for: SecretKey(account: old.secretAccount, kind: .password)) == nil, "its secret went with it")
        #expect(try await accounts.pending(before: .distantFuture).map(\.user) == ["bob"], "a setup in progress is left alone")
        #expect(throws: StoreError.self) { try accounts.add(fresh) }

        // A complete add: listed, secret kept, nothing pending.
        let carol = Account(server: "https://cloud.example.test", user: "carol", method: "com.owncloud.basicauth")
        try await registry.add(carol, secrets: [.password: Secret("carol-password")])
        #expect(try await accounts.list().map(\.user) == ["carol"])
        #expect(try await accounts.pending(before: .distantFuture).map(\.user) == ["bob"])
        #expect(try await database.auditTrail().contains { $0.kind == .accountRemoved && $0.detail == "alice" }, "the removal is audited")
    }

    /// A keyring that will not remove a secret: the pending row that leads to it stays (a secret is
    /// never left without a row that finds it), and goes, with the secret, once the keyring does.
    @Test func aRowStaysWhileItsSecretCannotBeRemoved() async throws {
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        let accounts = Accounts(database: database)
        let secrets = MemorySecretStore()
        let old = Account(server: "https://cloud.example.test", user: "alice", method: "com.owncloud.basicauth")
        try await accounts.add(old, pending: true, at: Date().addingTimeInterval(-120))
        let key = try SecretKey(account: old.secretAccount, kind: .password)
        try await secrets.store(Secret("alice-password"), for: key)

        let stubborn = AccountRegistry(accounts: accounts, secrets: KeyringRefusingRemoval(secrets))
        #expect(try await stubborn.removeInterrupted() == 0)
        #expect(try await accounts.pending(before: .distantFuture).map(\.user) == ["alice"], "the row that leads to the secret stays")
        // A failed add (its token stored, then its password refused): the token it stored cannot be
        // removed, so its pending row stays too.
        let bob = Account(server: "https://cloud.example.test", user: "bob", method: "com.owncloud.basicauth")
        await #expect(throws: SecretStoreError.self) {
            try await AccountRegistry(accounts: accounts, secrets: KeyringRefusingRemoval(secrets, failingStoreOf: .password)).add(
                bob, secrets: [.password: Secret("bob-password"), .accessToken: Secret("bob-token")])
        }
        #expect(try await accounts.pending(before: .distantFuture).map(\.user).sorted() == ["alice", "bob"])
        // A keyring that took nothing: nothing to remove, so no row is left to block a retry.
        let carol = Account(server: "https://cloud.example.test", user: "carol", method: "com.owncloud.basicauth")
        await #expect(throws: SecretStoreError.self) {
            try await AccountRegistry(accounts: accounts, secrets: KeyringRefusingRemoval(secrets, failingStoreOf: .password)).add(
                carol, secrets: [.password: Secret("carol-password")])
        }
        #expect(try await accounts.pending(before: .distantFuture).map(\.user).sorted() == ["alice", "bob"])
        // Adding alice again while her old secret is stuck: said as such, not "another vigil".
        let again = Account(server: "https://cloud.example.test", user: "alice", method: "com.owncloud.basicauth")
        let stuck = await #expect(throws: AccountSetupError.self) { try await stubborn.add(again, secrets: [.password: Secret("alice-password")]) }
        #expect(stuck?.code == .keyringUnavailable && stuck?.reason.contains("would not remove") == true, "\(String(describing: stuck))")

        let working = AccountRegistry(accounts: accounts, secrets: secrets)
        #expect(try await working.removeInterrupted(before: .distantFuture) == 2)
        let left = try await secrets.accounts(kind: nil)
        #expect(try await secrets.secret(for: key) == nil && left.isEmpty, "both rows went with their secrets")
        #expect(try await accounts.pending(before: .distantFuture).isEmpty)
    }

    /// A keyring that stores and reads, but never removes (and, if asked, fails to store one kind).
    final class KeyringRefusingRemoval: SecretStore {
        let inner: MemorySecretStore
        let failingStore: SecretKey.Kind?
        init(_ inner: MemorySecretStore, failingStoreOf kind: SecretKey.Kind? = nil) {
            self.inner = inner
            failingStore = kind
        }
        func store(_ secret: Secret, for key: SecretKey) throws {
            if key.kind == failingStore { throw SecretStoreError(.unavailable, "the keyring went away") }
            try inner.store(secret, for: key)
        }
        func secret(for key: SecretKey) throws -> Secret? { try inner.secret(for: key) }
        func remove(_ key: SecretKey) throws -> Bool { throw SecretStoreError(.denied, "the keyring refused") }
        func accounts(kind: SecretKey.Kind?) throws -> [String] { try inner.accounts(kind: kind) }
    }

    /// `vigil account add` killed at random points: never an account without its password, and
    /// what is left is cleared.
    @Test(.enabled(if: TestPaths.keyringDirectory != nil, "needs a Secret Service: run `make test`"))
    func killedSetupsLeaveNoHalfAddedAccount() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let path = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
            let server = running.url(path: "")
            let keyring = KeyringSecretStore()
            var completed = 0
            var random = SeededRandom.fromEnvironment(default: 0xADD_7E57)
            for round in 0..<12 {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: TestPaths.vigilBinary)
                process.arguments = [
                    "account", "add", server, "--user", "alice", "--password-stdin", "--method", "basic", "--ca-file", TestPaths.caBundle, "--database", path,
                ]
                let input = Pipe()
                process.standardInput = input
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                input.fileHandleForWriting.write(Data("alice-test-password\n".utf8))
                try? input.fileHandleForWriting.close()
                usleep(UInt32(round * 60_000 + Int.random(in: 0..<60_000, using: &random)))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                let database = try VigilDatabase(path: path)
                let accounts = Accounts(database: database)
                for account in try await accounts.list() {
                    #expect(
                        try await keyring.secret(for: SecretKey(account: account.secretAccount, kind: .password)) != nil,
                        "a listed account has its password (kill timings from VIGIL_TEST_SEED=\(random.seed))")
                    completed += 1
                    _ = try await AccountRemoval(accounts: accounts, secrets: keyring).remove(id: account.id)
                }
                // What a kill left: cleared as a later setup would, a minute on.
                try await AccountRegistry(accounts: accounts, secrets: keyring).removeInterrupted(before: .distantFuture)
                #expect(try await accounts.pending(before: .distantFuture).isEmpty)
                #expect(try await keyring.secret(for: SecretKey(account: "alice@" + server, kind: .password)) == nil, "no secret without its account")
            }
            // Some rounds finish before the kill: the test covers both sides of it.
            #expect(completed < 12)
        }
    }
}
