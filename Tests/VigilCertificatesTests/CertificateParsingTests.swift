import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

@Suite("Parsing certificates")
struct CertificateParsingTests {
    @Test func pemWithSeveralCertificatesKeepsOrder() throws {
        let chain = try Certificate.load(path: TestPaths.testcert("valid-127.0.0.1-chain.pem"))
        #expect(chain.count == 2)
        #expect(chain[0].subject.hasPrefix("CN=127.0.0.1"))
        #expect(chain[1].subject.hasPrefix("CN=Vigil Test Intermediate CA"))
    }

    @Test func derAndPemOfTheSameCertificateAreEqual() throws {
        let der = try Certificate.load(path: TestPaths.testcert("valid-127.0.0.1.der"))
        let pem = try Certificate.load(path: TestPaths.testcert("valid-127.0.0.1.pem"))
        #expect(der == pem)
        #expect(try Certificate.parsePEM(pem[0].pemEncoded) == pem)
    }

    @Test func truncatedDERIsMalformed() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestPaths.testcert("valid-127.0.0.1.der"))))
        #expect(throws: CertificateError(.malformedDER, "")) { try Certificate(derEncoded: Array(bytes.prefix(bytes.count / 2))) }
    }

    /// The outer length written with a leading zero byte (`30 83 00 hh ll`): OpenSSL accepts it
    /// and the signature still holds, but it is not DER. The certificate keeps OpenSSL's encoding,
    /// the one a TLS capture holds, so its fingerprint is the strict one's, not a second one.
    @Test func aNonStrictEncodingHasTheStrictFingerprint() throws {
        let strict = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestPaths.testcert("valid-127.0.0.1.der"))))
        try #require(strict[0] == 0x30 && strict[1] == 0x82)
        let loose = [0x30, 0x83, 0x00] + strict[2...]
        let parsed = try Certificate(derEncoded: Array(loose))
        let reference = try Certificate(derEncoded: strict)
        #expect(parsed.derEncoded == strict)
        #expect(parsed.sha256Fingerprint == reference.sha256Fingerprint)
        #expect(parsed.summary().fingerprints == reference.summary().fingerprints)
    }

    /// A PEM body indented with no-break spaces (pasted from a web page) still reads.
    @Test func unicodeWhiteSpaceInAPEMBodyIsSkipped() throws {
        let pem = try String(contentsOfFile: TestPaths.testcert("valid-127.0.0.1.pem"), encoding: .utf8)
        let indented = pem.split(separator: "\n").map { $0.hasPrefix("-----") ? String($0) : "\u{00A0}\u{00A0}" + $0 }.joined(separator: "\n")
        #expect(try Certificate.parsePEM(indented) == Certificate.parsePEM(pem))
    }

    @Test func trailingBytesAfterDERAreRejected() throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: TestPaths.testcert("valid-127.0.0.1.der"))))
        #expect(throws: CertificateError(.malformedDER, "")) { try Certificate(derEncoded: bytes + [0, 0]) }
    }

    @Test(arguments: [
        ("", CertificateError.Code.emptyInput),
        ("hello, I am not a certificate\n", .noCertificates),
        ("-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n", .malformedPEM),
        ("-----BEGIN CERTIFICATE-----\nMIIB\n", .malformedPEM),
        ("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", .malformedPEM),
    ])
    func badInputGivesACode(text: String, code: CertificateError.Code) {
        #expect(throws: CertificateError(code, "")) { try Certificate.parse(Array(text.utf8)) }
    }

    @Test func directoriesAndMissingFilesAreUnreadable() {
        #expect(throws: CertificateError(.unreadableFile, "")) { try Certificate.load(path: TestPaths.root.path) }
        #expect(throws: CertificateError(.unreadableFile, "")) { try Certificate.load(path: "/nonexistent/vigil.pem") }
    }

    /// A device or a pipe given as a CA file is named as such, and never read (a `/dev/zero` read
    /// to its end would never end).
    @Test func devicesArePlainlyRefused() {
        do {
            _ = try Certificate.load(path: "/dev/zero")
            Issue.record("/dev/zero was read as a certificate file")
        } catch let error as CertificateError {
            #expect(error.code == .unreadableFile && error.reason.contains("not a regular file"), "\(error.reason)")
        } catch {
            Issue.record("\(error)")
        }
    }
}
