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
}
