import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

@Suite("Findings")
struct FindingTests {
    func codes(_ name: String, at time: Date = Date(), role: CertificateRole = .leaf, host: String? = "127.0.0.1") throws -> Set<Finding.Code> {
        let certificate = try #require(try Certificate.load(path: TestPaths.testcert(name)).first)
        return Set(certificate.summary(at: time, role: role, peerName: host.map { PeerName(host: $0) }).findings.map(\.code))
    }

    @Test func validLeafHasOnlyTheLifetimeNote() throws {
        #expect(try codes("valid-127.0.0.1.pem") == [.longLifetime])
    }

    @Test func expiredAndNotYetValid() throws {
        #expect(try codes("expired.pem").contains(.expired))
        #expect(try codes("not-yet-valid.pem").contains(.notYetValid))
        // The same certificate inside its window has neither.
        let inside = try #require(ISO8601DateFormatter().date(from: "2150-06-01T00:00:00Z"))
        #expect(try codes("not-yet-valid.pem", at: inside).isDisjoint(with: [.expired, .notYetValid]))
    }

    @Test func expiresWithinThirtyDays() throws {
        let soon = try #require(ISO8601DateFormatter().date(from: "2124-12-20T00:00:00Z"))
        #expect(try codes("valid-127.0.0.1.pem", at: soon).contains(.expiresSoon))
    }

    @Test func weakKeyAndSHA1Signature() throws {
        #expect(try codes("rsa-1024.pem").contains(.weakKey))
        #expect(try codes("sha1-intermediate-ca.pem", role: .intermediate, host: nil).contains(.sha1Signature))
    }

    @Test func selfSignedLeaf() throws {
        let found = try codes("self-signed.pem")
        #expect(found.contains(.selfSigned))
        #expect(!found.contains(.longLifetime))
    }

    @Test func caUsedAsLeaf() throws {
        #expect(try codes("intermediate-ca.pem", host: nil).contains(.caAsLeaf))
    }

    @Test func hostnameOnlyInCommonName() throws {
        #expect(try codes("cn-only.pem").contains(.hostnameOnlyInCommonName))
        #expect(try !codes("valid-127.0.0.1.pem").contains(.hostnameOnlyInCommonName))
    }
}
