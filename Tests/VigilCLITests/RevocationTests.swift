import Foundation
import Testing
import VigilTestSupport

/// Offline revocation: `vigil inspect --crl-file` with a CRL the test PKI's intermediate issues
/// (openssl ca -revoke, -gencrl). Revoked is untrusted (and never approvable: ApprovalRuleTests).
@Suite("Revocation by CRL", .serialized)
struct RevocationTests {
    func inspect(_ name: String, host: String, crls: [String]) throws -> CommandResult {
        try CommandRunner.vigil(
            ["inspect", "--file", TestPaths.testcert("\(name)-chain.pem"), "--host", host, "--ca-file", TestPaths.caBundle]
                + crls.flatMap { ["--crl-file", $0] })
    }

    @Test func aRevokedCertificateIsUntrustedAndAnotherOneIsNot() throws {
        let crl = try TestCRL.revoking("valid-127.0.0.1")
        let root = try TestCRL.revoking(nil, issuer: "root-ca")
        let revoked = try inspect("valid-127.0.0.1", host: "127.0.0.1", crls: [crl.pem, root.pem])
        #expect(revoked.status == 1 && revoked.standardOutput.contains("revoked"), "\(revoked.standardOutput)")
        let other = try inspect("valid-127.0.0.2", host: "127.0.0.2", crls: [crl.der, root.der])
        #expect(other.status == 0, "the DER CRLs do not list it: \(other.standardOutput)")
    }

    /// The whole path: the intermediate must be covered too (here, by the root's CRL), and a
    /// revoked intermediate is untrusted offline.
    @Test func everyCertificateOfThePathIsChecked() throws {
        let leafOnly = try inspect("valid-127.0.0.2", host: "127.0.0.2", crls: [try TestCRL.revoking(nil).pem])
        #expect(
            leafOnly.status == 1 && leafOnly.standardOutput.contains("No CRL given can be used for the certificate at depth 1"), "\(leafOnly.standardOutput)")
        let revokedIntermediate = try TestCRL.revoking("intermediate-ca", issuer: "root-ca")
        let result = try inspect("valid-127.0.0.2", host: "127.0.0.2", crls: [try TestCRL.revoking(nil).pem, revokedIntermediate.pem])
        #expect(result.status == 1 && result.standardOutput.contains("The certificate at depth 1"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("has been revoked"), "\(result.standardOutput)")
    }

    @Test func anUnreadableCRLIsAnError() throws {
        let result = try CommandRunner.vigil(["inspect", "--file", TestPaths.testcert("valid-127.0.0.1-chain.pem"), "--crl-file", "/nonexistent/crl.pem"])
        #expect(result.status == 2 && result.errorCode == "CertificateError unreadable-file", "\(result.standardError)")
    }

    /// RFC 5280's policy inputs as settings: the test PKI's intermediate asserts no policy, so a
    /// required explicit policy makes its chains untrusted; a malformed OID is a settings error.
    @Test func policyInputsComeFromTheSettings() throws {
        let arguments = ["inspect", "--file", TestPaths.testcert("valid-127.0.0.1-chain.pem"), "--host", "127.0.0.1", "--ca-file", TestPaths.caBundle]
        #expect(try CommandRunner.vigil(arguments).status == 0)
        let required = try CommandRunner.vigil(arguments, environment: ["VIGIL_CONNECTION_REQUIRE_EXPLICIT_POLICY": "true"])
        #expect(required.status == 1 && required.standardOutput.contains("explicit policy is required"), "\(required.standardOutput)")
        let malformed = try CommandRunner.vigil(arguments, environment: ["VIGIL_CONNECTION_CERTIFICATE_POLICIES": "banana"])
        #expect(malformed.status != 0 && malformed.standardError.contains("not an object identifier"), "\(malformed.standardError)")
    }
}
