import Foundation
import Testing
import VigilTestSupport

/// A certificate under review cannot rewrite the review screen: escape sequences and
/// bidirectional overrides in its names and extensions are shown escaped, in text output and
/// in error messages; JSON keeps the exact values (escaped by the encoder).
@Suite("Hostile text from a certificate")
struct HostileTextTests {
    static let escape = "\u{1B}"

    func hostileCertificate() throws -> String {
        let directory = try TestPaths.temporaryDirectory()
        let key = directory.appendingPathComponent("k.pem").path, cert = directory.appendingPathComponent("c.pem").path
        // The CN redraws the screen and prints a green TRUSTED; the SAN carries a bidi override.
        let subject = "/CN=\u{1B}[2J\u{1B}[H\u{1B}[32mTRUSTED  bank.example\u{1B}[0m\u{202E}gnp.exe"
        let made = try CommandRunner.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30",
                "-utf8", "-subj", subject, "-addext", "subjectAltName=DNS:a\u{1B}[1Ab.example.test",
                "-keyout", key, "-out", cert,
            ])
        #expect(made.status == 0, "\(made.standardError)")
        return cert
    }

    @Test func textOutputShowsEscapesNotEffects() throws {
        let cert = try hostileCertificate()
        let text = try CommandRunner.vigil(["inspect", "--file", cert, "--host", "a.example.test"])
        #expect(text.status == 1)
        #expect(!text.standardOutput.contains(Self.escape) && !text.standardOutput.contains("\u{202E}"), "no raw escape or override reaches the terminal")
        #expect(text.standardOutput.contains("\\u{1b}[32mTRUSTED") && text.standardOutput.contains("\\u{202e}gnp.exe"))
        #expect(text.standardOutput.hasPrefix("UNTRUSTED"))

        let json = try CommandRunner.vigil(["inspect", "--file", cert, "--host", "a.example.test", "--json"])
        #expect(!json.standardOutput.contains(Self.escape), "the JSON encoder escapes control characters")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
        let certificates = try #require(object["certificates"] as? [[String: Any]])
        let san = certificates.first?["subjectAlternativeNames"] as? [String: Any]
        #expect((san?["dns"] as? [String])?.first == "a\u{1B}[1Ab.example.test", "JSON keeps the exact value")
        #expect(
            (certificates.first?["subject"] as? String)?.contains("\\1B[32mTRUSTED") == true, "names are in OpenSSL's RFC 2253 form, control characters as \\1B"
        )
    }

    @Test func errorMessagesAreEscaped() throws {
        let result = try CommandRunner.vigil(["inspect", "--file", "/nonexistent/\u{1B}[2Jfile.pem"])
        #expect(result.status == 2)
        #expect(!result.standardError.contains(Self.escape) && result.standardError.contains("\\u{1b}[2J"), "\(result.standardError)")
    }
}
