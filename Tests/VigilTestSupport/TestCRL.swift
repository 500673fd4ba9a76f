import Foundation

/// CRLs of the test PKI's intermediate, made with openssl (ca -revoke, -gencrl) for a test.
package enum TestCRL {
    package struct Failed: Error, CustomStringConvertible {
        package var description: String
    }

    /// A CRL of the test intermediate (or of the testcerts CA `issuer`) that revokes the testcerts
    /// case `revoked` (nil: none), as PEM and DER files.
    package static func revoking(_ revoked: String?, issuer: String = "intermediate-ca") throws -> (pem: String, der: String) {
        let directory = try TestPaths.temporaryDirectory().path
        try Data("[ ca ]\ndefault_ca = d\n[ d ]\ndatabase = index.txt\ndefault_md = sha256\ndefault_crl_days = 30\ncrlnumber = crlnumber\n".utf8).write(
            to: URL(fileURLWithPath: directory + "/ca.cnf"))
        try Data().write(to: URL(fileURLWithPath: directory + "/index.txt"))
        try Data("01\n".utf8).write(to: URL(fileURLWithPath: directory + "/crlnumber"))
        let ca = ["-config", "ca.cnf", "-cert", TestPaths.testcert("\(issuer).pem"), "-keyfile", TestPaths.testcert("\(issuer).key")]
        for arguments in (revoked.map { [["ca"] + ca + ["-revoke", TestPaths.testcert("\($0).pem")]] } ?? []) + [
            ["ca"] + ca + ["-gencrl", "-out", "crl.pem"],
            ["crl", "-in", "crl.pem", "-outform", "DER", "-out", "crl.der"],
        ] {
            let result = try CommandRunner.run("/usr/bin/openssl", arguments, currentDirectory: directory)
            guard result.status == 0 else { throw Failed(description: "openssl \(arguments.first ?? ""): \(result.standardError)") }
        }
        return (directory + "/crl.pem", directory + "/crl.der")
    }
}
