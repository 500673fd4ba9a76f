import Foundation
import Testing
import VigilCertificates
import VigilErrors
import VigilTestSupport

@testable import VigilStore

/// The store on SQLite's C API (GRDB before): databases GRDB made open and stay whole, dates read
/// as GRDB wrote them, a failed change leaves nothing behind.
@Suite("SQLite store")
struct SQLiteStoreTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/made-by-grdb.sqlite").path

    /// A copy of the database GRDB made (vigil before this change: two approvals of one
    /// certificate, the first revoked; one account; four audit events).
    static func copyOfFixture() throws -> String {
        let path = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
        try FileManager.default.copyItem(atPath: fixture, toPath: path)
        return path
    }

    static func utc(_ text: String) throws -> Date {
        try #require(try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
    }

    @Test func aDatabaseGRDBMadeReadsAsItWasWritten() throws {
        let database = try VigilDatabase(path: try Self.copyOfFixture())
        let accounts = try Accounts(database: database).list()
        #expect(accounts.count == 1)
        let alice = try #require(accounts.first)
        #expect(alice.id == "6F1D2C3B-0000-4000-8000-000000000001" && alice.user == "alice" && alice.label == "work" && !alice.needsLogin)
        #expect(StoredDate.text(of: alice.createdAt) == "2026-11-26 22:07:44.125")
        #expect(alice.tokenExpiresAt.map(StoredDate.text) == "2026-11-27 08:00:00.000")
        let approvals = try CertificateApprovals(database: database).list(includingRevoked: true)
        #expect(approvals.map(\.id) == [1, 2])
        #expect(approvals[0].revocationReason == "renewed" && approvals[0].note == "from GRDB" && approvals[0].revokedAt != nil)
        #expect(approvals[1].isActive && approvals[1].der?.isEmpty == false)
        let certificate = try #require(try Certificate.load(path: TestPaths.testcert("self-signed.pem")).first)
        #expect(approvals[1].der.map { [UInt8]($0) } == certificate.derEncoded)
        #expect(StoredDate.text(of: approvals[0].approvedAt) == "2026-11-26 22:07:43.264")
        #expect(abs(approvals[0].approvedAt.timeIntervalSince(try Self.utc("2026-11-26T22:07:43.264Z"))) < 0.000_5)
        #expect(try database.auditTrail().map(\.kind) == [.certificateApproved, .certificateRevoked, .certificateApproved, .accountAdded])
        #expect(try CertificateApprovals(database: database).approvedLeaves(host: "127.0.0.1", port: 8443) == [approvals[1].sha256])
    }

    @Test func aDatabaseGRDBMadeTakesChangesAndKeepsItsMigrations() throws {
        let path = try Self.copyOfFixture()
        let database = try VigilDatabase(path: path)
        let renamed = try Accounts(database: database).rename(id: "6F1D2C3B-0000-4000-8000-000000000001", to: "home")
        #expect(renamed.label == "home")
        let certificate = try #require(try Certificate.load(path: TestPaths.testcert("self-signed.pem")).first)
        let approval = try CertificateApprovals(database: database).approve(certificate, host: "localhost", port: 443)
        #expect(approval.id == 3)
        // Opened again (a second process): the same rows, no migration applied twice.
        let again = try VigilDatabase(path: path)
        #expect(try Accounts(database: again).resolve("home").user == "alice")
        #expect(try again.auditTrail().count == 6)
        let migrations = try again.read { db in
            var identifiers: [String] = []
            try db.prepare("SELECT identifier FROM grdb_migrations").forEachRow { identifiers.append(try $0.string(0)) }
            return identifiers
        }
        #expect(migrations.count == SchemaMigrations.all.count && Set(migrations) == Set(SchemaMigrations.all.map(\.identifier)))
    }

    @Test func aNewDatabaseHasTheSchemaGRDBMade() throws {
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        let fixture = try VigilDatabase(path: try Self.copyOfFixture())
        func columns(_ database: VigilDatabase) throws -> [String] {
            try database.read { db in
                var result: [String] = []
                for table in ["account", "approved_certificate", "audit_event"] {
                    try db.prepare("SELECT name, type, \"notnull\" FROM pragma_table_info('\(table)')").forEachRow { row in
                        result.append("\(table).\(try row.string(0)) \(try row.string(1)) \(row.integer(2))")
                    }
                }
                return result
            }
        }
        #expect(try columns(database) == columns(fixture))
        #expect(try columns(database).count == Account.columns.count + ApprovedCertificate.columns.count + AuditEvent.columns.count)
    }

    @Test func aChangeThatFailsLeavesNothing() throws {
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        struct Stop: Error {}
        // Every failure of a change is the store's error (what failed is in its message).
        #expect(throws: StoreError.self) {
            try database.write { db in
                var event = AuditEvent(time: Date(), kind: .accountAdded, target: "x", detail: "y")
                try event.insert(db)
                throw Stop()
            }
        }
        #expect(try database.auditTrail().isEmpty)
        // A constraint the schema holds (one active approval per certificate, host and port) fails
        // the change as a StoreError, and the database stays usable.
        let certificate = try #require(try Certificate.load(path: TestPaths.testcert("self-signed.pem")).first)
        let approvals = CertificateApprovals(database: database)
        let first = try approvals.approve(certificate, host: "127.0.0.1", port: 443)
        #expect(throws: StoreError.self) {
            try database.write { db in
                var copy = first
                copy.id = nil
                try copy.insert(db)
            }
        }
        #expect(try approvals.list().count == 1 && database.auditTrail().count == 1)
    }

    /// A date the format cannot hold (a server's absurd `expires_in`) is stored as the nearest it
    /// holds: never a crash, never five digits that no longer sort or read back.
    @Test func aDateOutOfRangeIsStoredAtTheEdge() throws {
        #expect(StoredDate.text(of: Date(timeIntervalSince1970: -1e15)) == "0001-01-01 00:00:00.000")
        #expect(StoredDate.text(of: Date(timeIntervalSince1970: 1e15)) == "9999-12-31 23:59:59.999")
        #expect(StoredDate.text(of: Date(timeIntervalSince1970: .infinity)) == "9999-12-31 23:59:59.999")
        #expect(StoredDate.text(of: Date(timeIntervalSince1970: .nan)) == "1970-01-01 00:00:00.000")
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        let accounts = Accounts(database: database)
        let account = Account(server: "https://cloud.test", user: "alice", method: "com.owncloud.oauth2")
        try accounts.add(account)
        try accounts.updateTokens(id: account.id, expiresAt: Date(timeIntervalSince1970: -1e13), needsLogin: false, because: "test")
        #expect(try accounts.list().first?.tokenExpiresAt.map(StoredDate.text) == "0001-01-01 00:00:00.000")
    }

    /// A nullable date that is text but no date is a damaged row, not "none": a revocation time
    /// read as none would show a revoked approval as active.
    @Test func anUnreadableRevocationTimeIsDamageNotActive() throws {
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        let certificate = try #require(try Certificate.load(path: TestPaths.testcert("self-signed.pem")).first)
        let approvals = CertificateApprovals(database: database)
        let approval = try approvals.approve(certificate, host: "127.0.0.1", port: 443)
        try database.write { db in try db.execute("UPDATE approved_certificate SET revokedAt = 'not a date' WHERE id = ?", [SQLiteValue(approval.id)]) }
        #expect(throws: StoreError.self) { try approvals.list(includingRevoked: true) }
    }

    /// An error is its code (CodedError): equal and hashed by it, never by its words or place.
    @Test func errorsAreTheirCodes() {
        let one = StoreError(.notFound, "No account with id a."), other = StoreError(.notFound, "No account with id b.")
        #expect(one == other && Set([one, other]).count == 1 && one.codeText == "not-found")
        #expect(one != StoreError(.invalid, "No account with id a."))
    }

    @Test func datesAreStoredAsGRDBWroteThemAndReadInEveryFormItAccepted() throws {
        let date = try Self.utc("2026-11-26T22:07:44.125Z")
        #expect(StoredDate.text(of: date) == "2026-11-26 22:07:44.125")
        #expect(StoredDate.text(of: Date(timeIntervalSince1970: 0)) == "1970-01-01 00:00:00.000")
        let forms: [(String, String?)] = [
            ("2026-11-26 22:07:44.125", "2026-11-26T22:07:44.125Z"), ("2026-11-26T22:07:44.125", "2026-11-26T22:07:44.125Z"),
            ("2026-11-26 22:07:44", "2026-11-26T22:07:44.000Z"), ("2026-11-26 22:07", "2026-11-26T22:07:00.000Z"),
            ("2026-11-26", "2026-11-26T00:00:00.000Z"), ("2026-11-26T23:07:44.125+01:00", "2026-11-26T22:07:44.125Z"),
            ("2026-11-26T22:07:44Z", "2026-11-26T22:07:44.000Z"), ("2026-13-26", nil), ("yesterday", nil), ("2026-11-26 22:07:44.", nil),
            ("2026-11-26 25:00", nil), ("2026-11-26 22:07:44.125 trailing", nil), ("", nil),
        ]
        for (text, expected) in forms {
            let read = StoredDate.date(from: Array(text.utf8))
            if let expected {
                // Read back, a date is written as it was (SQL compares the text): to the millisecond.
                #expect(read.map { StoredDate.text(of: $0) } == StoredDate.text(of: try Self.utc(expected)), "\(text)")
            } else {
                #expect(read == nil, "\(text)")
            }
        }
        #expect(StoredDate.date(from: .integer(86_400)) == Date(timeIntervalSince1970: 86_400))
    }
}
