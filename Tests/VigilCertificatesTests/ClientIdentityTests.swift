import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

/// Client certificates as users hand them over: PKCS#12 with a passphrase, PEM with the key
/// beside it or in a file of its own; each refusal with its reason, the key never shown.
@Suite("Client identities")
struct ClientIdentityTests {
    static let passphrase = "client-test-passphrase"

    func bytes(_ name: String) throws -> [UInt8] { try Array(Data(contentsOf: URL(fileURLWithPath: TestPaths.testcert(name)))) }

    @Test func aPKCS12OpensWithItsPassphraseOnly() throws {
        let identity = try ClientIdentity.read(try bytes("client-alice.p12"), passphrase: Self.passphrase)
        #expect(identity.certificate.summary().subject.contains("CN=alice") && identity.chain.count == 2)
        #expect(identity.refusals().isEmpty)
        identity.key.withPEM { #expect($0.hasPrefix("-----BEGIN PRIVATE KEY-----")) }
        #expect("\(identity.key)" == "«private key»" && String(reflecting: identity.key) == "ClientKey(«private key»)")
        #expect(!"\(identity)".contains("BEGIN PRIVATE KEY"), "no dump of the identity shows the key")
        #expect(throws: ClientIdentityError(.wrongPassphrase, "")) { try ClientIdentity.read(try bytes("client-alice.p12"), passphrase: "wrong") }
        #expect(throws: ClientIdentityError(.passphraseNeeded, "")) { try ClientIdentity.read(try bytes("client-alice.p12")) }
    }

    @Test func pemWithTheKeyBesideOrApart() throws {
        let apart = try ClientIdentity.read(try bytes("client-alice.pem"), key: try bytes("client-alice.key"))
        let beside = try ClientIdentity.read(try bytes("client-alice.key") + Array("\n".utf8) + (try bytes("client-alice.pem")) + (try bytes("client-ca.pem")))
        #expect(apart.certificate.sha256Fingerprint == beside.certificate.sha256Fingerprint, "the leaf is the one the key belongs to, wherever it is")
        #expect(beside.chain.count == 2)
        #expect(throws: ClientIdentityError(.keyMismatch, "")) { try ClientIdentity.read(try bytes("client-alice.pem"), key: try bytes("client-rsa.key")) }
        #expect(throws: ClientIdentityError(.noKey, "")) { try ClientIdentity.read(try bytes("client-alice.pem")) }
        #expect(throws: ClientIdentityError(.noCertificate, "")) { try ClientIdentity.read(Array("not a certificate".utf8)) }
        #expect(throws: ClientIdentityError(.unreadable, "")) { try ClientIdentity.read([]) }
    }

    @Test func anEncryptedPEMKeyNeedsItsPassphrase() throws {
        let directory = try TestPaths.temporaryDirectory()
        try CommandRunner.openssl(
            ["pkey", "-in", TestPaths.testcert("client-alice.key"), "-aes256", "-passout", "pass:\(Self.passphrase)", "-out", "encrypted.key"], in: directory)
        let encrypted = try Array(Data(contentsOf: directory.appendingPathComponent("encrypted.key")))
        #expect(throws: ClientIdentityError(.passphraseNeeded, "")) { try ClientIdentity.read(try bytes("client-alice.pem"), key: encrypted) }
        #expect(throws: ClientIdentityError(.wrongPassphrase, "")) {
            try ClientIdentity.read(try bytes("client-alice.pem"), key: encrypted, passphrase: "nope")
        }
        _ = try ClientIdentity.read(try bytes("client-alice.pem"), key: encrypted, passphrase: Self.passphrase)
    }

    @Test(arguments: [("client-expired", "expired"), ("client-server-eku", "wrong-purpose"), ("client-rsa-1024", "weak-key")])
    func refusedWithTheReason(name: String, code: String) throws {
        let identity = try ClientIdentity.read(try bytes("\(name).p12"), passphrase: Self.passphrase)
        #expect(identity.refusals().map(\.code.rawValue).contains(code), "\(identity.refusals())")
    }

    @Test func theReviewShowsWhatAUserChecks() throws {
        let review = try ClientIdentity.read(try bytes("client-rsa.p12"), passphrase: Self.passphrase).review()
        #expect(review.subject.contains("CN=rsa-user") && review.issuer.contains("Vigil Test Client CA"))
        #expect(
            review.key == "RSA 2048" && review.extendedKeyUsage == ["TLS Web Client Authentication"] || review.extendedKeyUsage == ["clientAuth"], "\(review)")
        #expect(review.daysLeft > 3650 && review.sha256.count == 95)
    }
}
