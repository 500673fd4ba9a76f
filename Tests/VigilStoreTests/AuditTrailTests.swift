import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

@testable import VigilStore

/// The trail names who acted, keeps the reviewed certificate, and survives kinds it does not know.
@Suite("Audit trail")
struct AuditTrailTests {
    @Test func eventsNameTheActorAndApprovalsKeepTheCertificate() throws {
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        let certificate = try #require(try Certificate.load(path: TestPaths.testcert("self-signed.pem")).first)
        let approval = try CertificateApprovals(database: database).approve(certificate, host: "127.0.0.1", port: 443)
        #expect(approval.der.map { [UInt8]($0) } == certificate.derEncoded)
        let listed = try CertificateApprovals(database: database).list()
        #expect(listed.first?.der.map { [UInt8]($0) } == certificate.derEncoded, "the DER is stored, not only kept in memory")
        let event = try #require(try database.auditTrail().first)
        #expect(event.actor == AuditEvent.currentUser && event.actor?.contains("uid \(geteuid())") == true)
    }

    @Test func aKindFromANewerVersionIsKeptNotFatal() throws {
        let database = try VigilDatabase(path: try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path)
        try database.write { db in
            var event = AuditEvent(time: Date(), kind: .init(rawValue: "rule-changed"), target: "x", detail: "y", actor: nil)
            try event.insert(db)
        }
        let certificate = try #require(try Certificate.load(path: TestPaths.testcert("self-signed.pem")).first)
        try CertificateApprovals(database: database).approve(certificate, host: "127.0.0.1", port: 443)
        let trail = try database.auditTrail()
        #expect(trail.map(\.kind.rawValue) == ["rule-changed", "certificate-approved"])
        #expect(!trail[0].kind.isKnown && trail[1].kind.isKnown)
    }
}
