import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

/// A CA that partitions its CRL (RFC 5280's issuing distribution point): a shard for other
/// certificates, served where this certificate's CRL should be, says nothing about it, even
/// though the right CA signed it and it does not list the certificate.
@Suite("Partitioned CRLs")
struct PartitionedCRLTests {
    /// A CA, a leaf (serial 5) and a CRL whose issuing distribution point names `shard`, listing
    /// the leaf when `revoking`.
    func pki(shard: String, revoking: Bool) throws -> (leaf: Certificate, ca: Certificate, crl: [UInt8]) {
        let directory = try TestPaths.temporaryDirectory()
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try CommandRunner.openssl(
            ["req", "-x509"] + ec + ["-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=Partitioned CA", "-days", "30"], in: directory)
        try CommandRunner.openssl(["req"] + ec + ["-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=leaf"], in: directory)
        try CommandRunner.openssl(
            ["x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "5", "-days", "10", "-out", "leaf.pem"], in: directory)
        try "".write(to: directory.appendingPathComponent("index.txt"), atomically: true, encoding: .utf8)
        try "01\n".write(to: directory.appendingPathComponent("crlnumber"), atomically: true, encoding: .utf8)
        try """
        [ca]
        default_ca = CA
        [CA]
        database = index.txt
        crlnumber = crlnumber
        default_md = sha256
        default_crl_days = 1
        crl_extensions = crl_ext
        [crl_ext]
        issuingDistributionPoint = critical, @idp
        [idp]
        fullname = URI:\(shard)

        """.write(to: directory.appendingPathComponent("ca.cnf"), atomically: true, encoding: .utf8)
        let ca = ["-config", "ca.cnf", "-keyfile", "ca.key", "-cert", "ca.pem"]
        if revoking { try CommandRunner.openssl(["ca"] + ca + ["-revoke", "leaf.pem"], in: directory) }
        try CommandRunner.openssl(["ca"] + ca + ["-gencrl", "-out", "shard.crl"], in: directory)
        let leaf = try #require(try Certificate.load(path: directory.appendingPathComponent("leaf.pem").path).first)
        let issuer = try #require(try Certificate.load(path: directory.appendingPathComponent("ca.pem").path).first)
        let crl = try Array(Data(contentsOf: directory.appendingPathComponent("shard.crl")))
        return (leaf, issuer, crl)
    }

    @Test func aShardForOtherCertificatesSaysNothing() throws {
        let (leaf, ca, crl) = try pki(shard: "http://ca.example.test/shard-2.crl", revoking: false)
        let elsewhere = leaf.readCRL(crl, issuer: ca, depth: 0, url: "http://ca.example.test/shard-1.crl")
        #expect(elsewhere.status == nil && elsewhere.problem != nil, "a shard of other certificates is not a \"good\": \(elsewhere)")
        let itsOwn = leaf.readCRL(crl, issuer: ca, depth: 0, url: "http://ca.example.test/shard-2.crl")
        #expect(itsOwn.status == .good && itsOwn.problem == nil, "\(itsOwn)")
    }

    @Test func theRightShardStillRevokes() throws {
        let (leaf, ca, crl) = try pki(shard: "http://ca.example.test/shard-1.crl", revoking: true)
        #expect(leaf.readCRL(crl, issuer: ca, depth: 0, url: "http://ca.example.test/shard-1.crl").status == .revoked)
        #expect(leaf.readCRL(crl, issuer: ca, depth: 0, url: "HTTP://CA.example.test/shard-1.crl").status == .revoked, "the URL's case aside")
    }
}
