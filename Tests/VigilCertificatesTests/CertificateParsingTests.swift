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
}
