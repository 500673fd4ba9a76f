import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

@testable import VigilHTTP

/// A chain trusted only because the user approved it has no CA whose revocation statement
/// counts: the OCSP responder and CRL its certificate names (here a loopback listener standing
/// for a cloud's metadata service and an admin URL) receive nothing, under hard-fail too, and the
/// review shows them. The control: the same listener named by a CA-issued chain is asked.
@Suite("Revocation only where a CA vouches", .serialized)
struct ApprovedChainRevocationTests {
    static let reply = Data("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)

    /// `leaf.pem`/`leaf.key` for 127.0.0.1 naming `port`'s OCSP and CRL URLs: self-signed, or
    /// issued by a CA (`ca.pem`) made here.
    func pki(naming port: Int, selfSigned: Bool) throws -> URL {
        let directory = try TestPaths.temporaryDirectory()
        let extensions = """
            basicConstraints = critical, CA:FALSE
            extendedKeyUsage = serverAuth
            subjectAltName = IP:127.0.0.1
            authorityInfoAccess = OCSP;URI:http://127.0.0.1:\(port)/latest/meta-data/iam/security-credentials/
            crlDistributionPoints = URI:http://127.0.0.1:\(port)/admin/delete-everything

            """
        try extensions.write(to: directory.appendingPathComponent("leaf.ext"), atomically: true, encoding: .utf8)
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        if selfSigned {
            try CommandRunner.openssl(
                ["req", "-x509"] + ec + ["-keyout", "leaf.key", "-out", "leaf.pem", "-days", "30", "-subj", "/CN=127.0.0.1", "-extensions", "v3"]
                    + ["-config", try config(directory, extensions)], in: directory)
        } else {
            try CommandRunner.openssl(
                ["req", "-x509"] + ec + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "30", "-subj", "/CN=Revocation Test CA"], in: directory)
            try CommandRunner.openssl(["req"] + ec + ["-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=127.0.0.1"], in: directory)
            try CommandRunner.openssl(
                ["x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "7", "-days", "10", "-extfile", "leaf.ext"]
                    + ["-out", "leaf.pem"], in: directory)
        }
        return directory
    }

    /// `openssl s_server` with the PKI's leaf.
    func serve(_ directory: URL) throws -> TLSTestServer {
        try TLSTestServer(certificateFile: directory.appendingPathComponent("leaf.pem").path, keyFile: directory.appendingPathComponent("leaf.key").path)
    }

    func config(_ directory: URL, _ extensions: String) throws -> String {
        let file = directory.appendingPathComponent("req.cnf")
        try "[req]\ndistinguished_name = dn\n[dn]\n[v3]\n\(extensions)".write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    func client(_ evaluator: TrustEvaluator, approving leaf: Certificate?, at endpoint: Endpoint) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .seconds(10)
        let approvals = leaf.map { [endpoint: Set([$0.sha256Fingerprint])] } ?? [:]
        return HTTPClient(
            policy: EvaluatorTrustPolicy(evaluator: evaluator, approvals: approvals, revocation: RevocationChecker(policy: .hardFail)),
            configuration: configuration)
    }

    @Test func anApprovedChainsAddressesReceiveNothing() async throws {
        let listener = SilentListener(reply: Self.reply)
        let directory = try pki(naming: listener.port, selfSigned: true)
        let server = try serve(directory)
        defer { server.stop() }
        let endpoint = try Endpoint(url: server.url)
        let leaf = try #require(try Certificate.load(path: directory.appendingPathComponent("leaf.pem").path).first)
        let evaluator = try TrustEvaluator(configuration: .anchors([]))
        let answer = try await client(evaluator, approving: leaf, at: endpoint).send(HTTPRequest(url: server.url + "/"))
        #expect(answer.status == 200, "approved, and hard-fail does not refuse what it may not ask")
        // The review (a probe and the judge, as account setup shows it) lists the addresses.
        let handshake = try await TLSProbe().handshake(with: endpoint)
        let judge = ConnectionJudge(evaluator: evaluator, requirements: ConnectionRequirements(revocation: RevocationChecker(policy: .hardFail)))
        let evaluation = await judge.verdict(for: handshake, endpoint: endpoint)
        #expect(evaluation.revocation?.notFetched == true)
        #expect(
            evaluation.revocation?.addressesNotAsked == [
                "http://127.0.0.1:\(listener.port)/latest/meta-data/iam/security-credentials/", "http://127.0.0.1:\(listener.port)/admin/delete-everything",
            ])
        #expect(listener.accepted == 0, "an approved chain's OCSP and CRL addresses were asked")
    }

    /// The control: the same addresses named by a chain a CA vouches for are asked (and, under
    /// hard-fail, a 404 from both is an unknown status: refused).
    @Test func aTrustedChainsAddressesAreAsked() async throws {
        let listener = SilentListener(reply: Self.reply)
        let directory = try pki(naming: listener.port, selfSigned: false)
        let server = try serve(directory)
        defer { server.stop() }
        let evaluator = try TrustEvaluator(configuration: .caFiles([directory.appendingPathComponent("ca.pem").path]))
        await #expect(throws: HTTPError.self) {
            try await client(evaluator, approving: nil, at: try Endpoint(url: server.url)).send(HTTPRequest(url: server.url + "/"))
        }
        #expect(listener.accepted >= 1, "the listener was asked")
    }
}
