import Foundation
import Testing
import VigilStore
import VigilTestSupport

@Suite("Accounts")
struct AccountsTests {
    @Test func addListRemoveWithAudit() throws {
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        let accounts = Accounts(database: database)
        let alice = Account(server: "https://cloud.test", user: "alice", method: "com.owncloud.basicauth")
        try accounts.add(alice)
        #expect(throws: StoreError.self) { try accounts.add(Account(server: "https://cloud.test", user: "alice", method: "com.owncloud.oauth2")) }
        try accounts.add(Account(server: "https://cloud.test", user: "bob", method: "com.owncloud.basicauth"))
        #expect(try accounts.list().map(\.user) == ["alice", "bob"])
        #expect(try accounts.remove(id: alice.id).id == alice.id)
        #expect(throws: StoreError.self) { try accounts.remove(id: alice.id) }
        #expect(try accounts.list().map(\.user) == ["bob"])
        #expect(try database.auditTrail().map(\.kind) == [.accountAdded, .accountAdded, .accountRemoved])
        #expect(alice.secretAccount == "alice@https://cloud.test")
    }

    /// A reference names one account or none: id (any case), label, unique id prefix, user@host.
    @Test func referencesNameOneAccountOrSaySo() throws {
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        let accounts = Accounts(database: database)
        let alice = Account(id: "AAAA1111-0000-0000-0000-000000000001", server: "https://cloud.test", user: "alice", method: "com.owncloud.basicauth")
        let bob = Account(id: "AAAA2222-0000-0000-0000-000000000002", server: "https://cloud.test:8443", user: "bob", method: "com.owncloud.basicauth")
        try accounts.add(alice)
        try accounts.add(bob)
        #expect(try accounts.resolve("aaaa1111-0000-0000-0000-000000000001").id == alice.id)
        #expect(try accounts.resolve("aaaa2").id == bob.id)
        #expect(try accounts.resolve("bob@cloud.test").id == bob.id)
        #expect(throws: StoreError.self) { try accounts.resolve("AAAA") }  // both
        #expect(throws: StoreError.self) { try accounts.resolve("aaa") }  // too short to be a prefix
        #expect(throws: StoreError.self) { try accounts.resolve("carol@cloud.test") }
        try accounts.rename(id: alice.id, to: "work")
        #expect(try accounts.resolve("work").id == alice.id)
        #expect(throws: StoreError.self) { try accounts.rename(id: bob.id, to: "work") }  // taken
        #expect(throws: StoreError.self) { try accounts.rename(id: bob.id, to: bob.id) }  // an id's shape
        #expect(throws: StoreError.self) { try accounts.rename(id: bob.id, to: "a@b") }
        try accounts.rename(id: alice.id, to: nil)
        #expect(throws: StoreError.self) { try accounts.resolve("work") }
        let out = try accounts.logOut(id: bob.id, removed: ["password"])
        #expect(out.needsLogin)
        #expect(try database.auditTrail().map(\.kind).suffix(3) == [.accountRenamed, .accountRenamed, .accountLoggedOut])
    }
}
