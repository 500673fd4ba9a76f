import Foundation
import Testing
import VigilCertificates
import VigilHTTP
import VigilSimulator
import VigilTestSupport

/// Real TLS over loopback: openssl s_server serves each testcerts case; Vigil's probe fetches the
/// chain and the evaluator judges it.
@Suite("TLS probe against a live server", .serialized, .timeLimit(.minutes(3)))
struct TLSProbeTests {
    static let cases: [(String, String, Bool)] = [
        ("valid-127.0.0.1", "127.0.0.1", true),
        ("valid-127.0.0.2", "127.0.0.2", true),
        ("valid-127.0.0.3", "127.0.0.3", true),
        ("valid-ipv6", "::1", true),
        ("expired", "127.0.0.1", false),
        ("not-yet-valid", "127.0.0.1", false),
        ("wrong-host", "127.0.0.1", false),
        ("self-signed", "127.0.0.1", false),
        ("untrusted-root", "127.0.0.1", false),
        ("incomplete-chain", "127.0.0.1", false),
        ("rsa-1024", "127.0.0.1", false),
        ("sha1-intermediate", "127.0.0.1", false),
        ("renewed-a1", "127.0.0.1", true),
        ("renewed-a2", "127.0.0.1", true),
        ("cn-only", "127.0.0.1", false),
        ("rekeyed-b1", "127.0.0.1", true),
        ("mitm-forged", "127.0.0.1", false),
    ]

    @Test(arguments: cases)
    func liveChainMatchesTheFilesAndTheVerdict(name: String, bind: String, trusted: Bool) async throws {
        let server = try TLSTestServer(case: name, bind: bind)
        defer { server.stop() }
        let handshake = try await TLSProbe(timeout: .seconds(10)).handshake(with: Endpoint(url: server.url))
        let expected = try Certificate.load(path: TestPaths.testcert("\(name)-chain.pem"))
        #expect(handshake.chain == expected, "the chain as sent must be exactly what the server sends")
        #expect(handshake.protocolVersion.hasPrefix("TLS"))
        let evaluator = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle]))
        let verdict = evaluator.evaluate(handshake.chain, for: PeerName(host: bind)).verdict
        #expect(verdict.isTrusted == trusted, "\(name): \(verdict.reasons.map(\.description))")
    }

    @Test func localhostNameIsSentAsSNIAndMatched() async throws {
        let server = try TLSTestServer(case: "valid-localhost", bind: "127.0.0.1")
        defer { server.stop() }
        let endpoint = try Endpoint(url: "https://localhost:\(server.port)")
        let handshake = try await TLSProbe().handshake(with: endpoint)
        let evaluator = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle]))
        #expect(evaluator.evaluate(handshake.chain, for: endpoint.peerName).verdict.isTrusted)
    }

    /// A host not yet judged gets no byte of application data from the probe, even one that offers
    /// HTTP/2 (where libcurl would send HTTP/2's preface the moment the handshake ends).
    @Test(arguments: ["self-signed", "http2-valid"])
    func theProbeSendsNoApplicationData(scenario: String) async throws {
        try await withRunningSimulator(scenario) { (running) async throws in
            let handshake = try await TLSProbe(timeout: .seconds(10)).handshake(with: Endpoint(url: running.url(path: "")))
            #expect(!handshake.chain.isEmpty)
            // The connection is journalled once it is closed on the simulator's side.
            var connections = running.simulator.journal.connections
            for _ in 0..<100 where connections.isEmpty || connections.contains(where: \.open) {
                try await Task.sleep(for: .milliseconds(20))
                connections = running.simulator.journal.connections
            }
            #expect(connections.count == 1 && connections.allSatisfy { $0.handshake == "completed" && $0.applicationBytes == 0 }, "\(connections)")
        }
    }

    @Test func refusedConnection() async throws {
        let endpoint = try Endpoint(url: "https://127.0.0.1:\(closedLoopbackPort())")
        await #expect(throws: HTTPError(.connectionRefused, "")) { try await TLSProbe().handshake(with: endpoint) }
    }

    @Test func plainHTTPPortIsNotTLS() async throws {
        let listener = SilentListener(reply: Data("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8))
        let endpoint = try Endpoint(url: "https://127.0.0.1:\(listener.port)")
        await #expect(throws: HTTPError(.notTLS, "")) { try await TLSProbe().handshake(with: endpoint) }
    }

    /// A server that takes the connection and never answers the ClientHello stalled: something
    /// answered, so it is a failed handshake, not a server out of reach.
    @Test func silentServerTimesOut() async throws {
        let listener = SilentListener()
        let endpoint = try Endpoint(url: "https://127.0.0.1:\(listener.port)")
        let error = await #expect(throws: HTTPError.self) { try await TLSProbe(timeout: .milliseconds(500)).handshake(with: endpoint) }
        #expect(error?.code == .handshakeStalled && error?.reason.contains("stalled") == true && error?.reachedNothing == false, "\(String(describing: error))")
    }
}

@Suite("Endpoint parsing", .timeLimit(.minutes(3)))
struct EndpointTests {
    @Test func parsesHostsPortsAndIPv6() throws {
        #expect(try Endpoint(url: "https://cloud.example.com") == Endpoint(host: "cloud.example.com", port: 443))
        #expect(try Endpoint(url: "https://127.0.0.1:8443/owncloud") == Endpoint(host: "127.0.0.1", port: 8443))
        let v6 = try Endpoint(url: "https://[::1]:9443")
        #expect(v6.host == "::1")
        #expect(v6.description == "https://[::1]:9443")
        #expect(v6.peerName.kind == .ip)
    }

    @Test(arguments: ["http://example.com", "example.com", "ftp://x", "https://", "https://host:99999"])
    func rejectsWhatIsNotAnHTTPSURL(text: String) {
        #expect(throws: HTTPError(.invalidURL, "")) { try Endpoint(url: text) }
    }
}
