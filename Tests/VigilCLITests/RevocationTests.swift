import Foundation
import Testing
import VigilTestSupport

/// Offline revocation: `vigil inspect --crl-file` with a CRL the test PKI's intermediate issues
/// (openssl ca -revoke, -gencrl). Revoked is untrusted (and never approvable: ApprovalRuleTests).
@Suite("Revocation by CRL", .serialized)
struct RevocationTests {
    func inspect(_ name: String, host: String, crl: String) throws -> CommandResult {
        try CommandRunner.vigil([
            "inspect", "--file", TestPaths.testcert("\(name)-chain.pem"), "--host", host, "--ca-file", TestPaths.caBundle, "--crl-file", crl,
        ])
    }

    @Test func aRevokedCertificateIsUntrustedAndAnotherOneIsNot() throws {
        let crl = try TestCRL.revoking("valid-127.0.0.1")
        let revoked = try inspect("valid-127.0.0.1", host: "127.0.0.1", crl: crl.pem)
        #expect(revoked.status == 1 && revoked.standardOutput.contains("revoked"), "\(revoked.standardOutput)")
        let other = try inspect("valid-127.0.0.2", host: "127.0.0.2", crl: crl.der)
        #expect(other.status == 0, "the DER CRL does not list it: \(other.standardOutput)")
    }

    @Test func anUnreadableCRLIsAnError() throws {
        let result = try CommandRunner.vigil(["inspect", "--file", TestPaths.testcert("valid-127.0.0.1-chain.pem"), "--crl-file", "/nonexistent/crl.pem"])
        #expect(result.status == 2 && result.standardError.contains("cannot be read"), "\(result.standardError)")
    }
}
