import Foundation
import Testing
import VigilAuth
import VigilCertificates
import VigilHTTP
import VigilSimulator
import VigilTestSupport

/// Detection against the simulator over real TLS; the journal shows no credential was sent.
@Suite("Authentication method detection, live", .serialized, .timeLimit(.minutes(3)))
struct AuthenticationDetectorTests {
    func detector() throws -> AuthenticationDetector {
        let evaluator = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle]))
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .seconds(10)
        return AuthenticationDetector(client: HTTPClient(policy: EvaluatorTrustPolicy(evaluator: evaluator), configuration: configuration))
    }

    static let cases: [(String, [AuthenticationMethodIdentifier])] = [
        ("valid", [.openIDConnect, .oauth2, .basicAuth]),
        ("basic-only", [.basicAuth]),
        ("bearer-only", [.openIDConnect, .oauth2]),
    ]

    @Test(arguments: cases)
    func detectsWhatTheServerOffers(scenario: String, expected: [AuthenticationMethodIdentifier]) async throws {
        try await withRunningSimulator(scenario) { (running) async throws in
            let detection = try await detector().detect(server: running.url(path: ""))
            #expect(detection.methods.map(\.identifier) == expected, "\(scenario): \(detection.methods) \(detection.notes)")
            #expect(detection.redirects.isEmpty)
            if expected.contains(.openIDConnect) {
                let configuration = try #require(detection.methods.first?.openIDConfiguration)
                #expect(configuration.issuer == running.url(path: ""))
                #expect(configuration.registrationEndpoint != nil)
            }
            #expect(running.simulator.journal.entries.allSatisfy { !$0.authorization && !$0.cookie }, "detection sends no credential")
        }
    }

    @Test func aRedirectIsReportedNotFollowed() async throws {
        try await withRunningSimulator("redirect-cross-host-302") { (running) async throws in
            let detection = try await detector().detect(server: running.url(path: ""))
            #expect(detection.methods.isEmpty)
            #expect(!detection.redirects.isEmpty && detection.redirects.allSatisfy(\.changesHost))
            #expect(running.simulator.journal.entries.allSatisfy { $0.host == "127.0.0.1" }, "host 2 was not contacted")
        }
    }

    @Test func anUntrustedServerStopsDetectionBeforeAnyRequest() async throws {
        try await withRunningSimulator("self-signed") { (running) async throws in
            do {
                _ = try await detector().detect(server: running.url(path: ""))
                Issue.record("detection went on with an untrusted server")
            } catch let error as HTTPError {
                #expect(error.code == .untrustedCertificate)
            }
            #expect(running.simulator.journal.entries.isEmpty)
        }
    }
}
