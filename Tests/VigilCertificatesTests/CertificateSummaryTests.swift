import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

/// Compares Vigil's summary with what the openssl command prints for the same file: an
/// independent reading of the same certificate.
@Suite("Certificate summary")
struct CertificateSummaryTests {
    func openssl(_ arguments: [String]) throws -> String {
        try CommandRunner.run("/usr/bin/openssl", arguments).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func load(_ name: String) throws -> Certificate {
        try #require(try Certificate.load(path: TestPaths.testcert(name)).first)
    }

    /// Every RSA exponent and named curve in the system bundle (exponents 3, 43147 and 65537;
    /// P-256 and P-384 on Debian), in order, as `openssl pkcs7 -print_certs -text` prints them.
    @Test func keyFactsOfTheSystemBundleMatchOpenSSL() throws {
        let bundle = "/etc/ssl/certs/ca-certificates.crt"
        let certificates = try Certificate.load(path: bundle)
        let directory = try TestPaths.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let p7 = directory.appendingPathComponent("bundle.p7").path
        _ = try openssl(["crl2pkcs7", "-nocrl", "-certfile", bundle, "-out", p7])
        let text = try openssl(["pkcs7", "-in", p7, "-print_certs", "-text", "-noout"])
        var expected: [String] = []
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("Exponent: ") { expected.append("e=" + (trimmed.dropFirst(10).split(separator: " ").first.map(String.init) ?? "")) }
            if trimmed.hasPrefix("ASN1 OID: ") { expected.append("curve=" + trimmed.dropFirst(10)) }
        }
        let summaries = certificates.map { $0.summary() }
        let mine = summaries.compactMap { summary in summary.publicKey.rsaExponent.map { "e=" + $0 } ?? summary.publicKey.curve.map { "curve=" + $0 } }
        #expect(expected.count > 100)
        #expect(mine == expected)
    }

    @Test func fieldsMatchOpenSSLCommand() throws {
        let path = TestPaths.testcert("valid-127.0.0.1.pem")
        let summary = try load("valid-127.0.0.1.pem").summary(at: Date(timeIntervalSince1970: 1_800_000_000), peerName: PeerName(host: "127.0.0.1"))
        #expect(summary.subject == "CN=127.0.0.1,O=Vigil Test PKI,C=DE")
        #expect(summary.issuer == "CN=Vigil Test Intermediate CA,O=Vigil Test PKI,C=DE")
        #expect(summary.version == 3)
        let serial = try openssl(["x509", "-in", path, "-noout", "-serial"]).replacingOccurrences(of: "serial=", with: "")
        #expect(summary.serialNumber.hasSuffix(serial.lowercased()))
        let sha256 = try openssl(["x509", "-in", path, "-noout", "-fingerprint", "-sha256"]).components(separatedBy: "=").last
        #expect(summary.fingerprints.sha256 == sha256)
        let sha1 = try openssl(["x509", "-in", path, "-noout", "-fingerprint", "-sha1"]).components(separatedBy: "=").last
        #expect(summary.fingerprints.sha1 == sha1)
        #expect(summary.validity.notBefore == "2025-01-01T00:00:00Z")
        #expect(summary.validity.notAfter == "2125-01-01T00:00:00Z")
        #expect(summary.signatureAlgorithm == "ecdsa-with-SHA256")
        #expect(summary.publicKey.algorithm == "RSA")
        #expect(summary.publicKey.bits == 2048)
        #expect(summary.publicKey.rsaExponent == "65537")
        #expect(summary.publicKey.curve == nil)
        #expect(summary.subjectAlternativeNames.ip == ["127.0.0.1"])
        #expect(summary.subjectAlternativeNames.dns.isEmpty)
        #expect(summary.basicConstraints?.isCA == false)
        #expect(summary.basicConstraints?.pathLength == nil)
        #expect(summary.keyUsage == ["digitalSignature"])
        #expect(summary.extendedKeyUsage == ["serverAuth"])
        #expect(summary.authorityInformationAccess.ocsp == ["http://127.0.0.1:8080/ocsp"])
        #expect(summary.authorityInformationAccess.caIssuers == ["http://127.0.0.1:8080/intermediate.cer"])
        #expect(summary.crlDistributionPoints == ["http://127.0.0.1:8080/intermediate.crl"])
        #expect(summary.policies == ["2.23.140.1.2.1"])
        #expect(summary.embeddedSCTCount == 0)
        #expect(summary.extensions.first { $0.oid == "2.5.29.19" }?.critical == true)
        #expect(summary.extensions.first { $0.oid == "2.5.29.37" }?.critical == false)
        #expect(summary.extensions.allSatisfy { !$0.text.isEmpty })
        #expect(!summary.isSelfSigned)
    }

    @Test func spkiPinMatchesOpenSSLPipeline() throws {
        let path = TestPaths.testcert("valid-localhost.pem")
        let script = "openssl x509 -in '\(path)' -noout -pubkey | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64"
        let expected = try CommandRunner.run("/bin/sh", ["-c", script]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try load("valid-localhost.pem").spkiPin == expected)
    }

    @Test func ecKeyShowsCurveAndDNSNames() throws {
        let summary = try load("valid-localhost.pem").summary()
        #expect(summary.publicKey.algorithm == "EC")
        #expect(summary.publicKey.bits == 256)
        #expect(summary.publicKey.curve == "prime256v1")
        #expect(summary.subjectAlternativeNames.dns == ["localhost"])
    }

    @Test func ipv6SANIsPrintedCompressed() throws {
        #expect(try load("valid-ipv6.pem").summary().subjectAlternativeNames.ip == ["::1"])
    }

    @Test func intermediateShowsPathLength() throws {
        let summary = try load("intermediate-ca.pem").summary(role: .intermediate)
        #expect(summary.basicConstraints?.isCA == true)
        #expect(summary.basicConstraints?.pathLength == 0)
        #expect(summary.keyUsage == ["keyCertSign", "cRLSign"])
        #expect(summary.publicKey.curve == "secp384r1")
        #expect(summary.subjectKeyIdentifier != nil)
    }

    @Test func renewedCertificateKeepsThePinAndRekeyedDoesNot() throws {
        let a1 = try load("renewed-a1.pem"), a2 = try load("renewed-a2.pem"), b1 = try load("rekeyed-b1.pem")
        #expect(a1.spkiPin == a2.spkiPin)
        #expect(a1.sha256Fingerprint != a2.sha256Fingerprint)
        #expect(a1.spkiPin != b1.spkiPin)
        #expect(a1.subject == b1.subject)
    }

    @Test func summaryIsCodable() throws {
        let summary = try load("valid-127.0.0.1.pem").summary()
        let data = try JSONEncoder().encode(summary)
        #expect(try JSONDecoder().decode(CertificateSummary.self, from: data) == summary)
    }
}
