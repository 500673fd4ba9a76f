import Testing
import VigilCertificates
import VigilHTTP
import VigilTestSupport

/// An interceptor whose CA is trusted cannot satisfy a pin by appending the genuine leaf.
@Suite("Pins count only certificates that vouch")
struct PinBypassTests {
    @Test func anAppendedGenuineLeafDoesNotSatisfyThePin() throws {
        let forged = try Certificate.load(path: TestPaths.testcert("mitm-forged-chain.pem"))
        let genuine = try #require(try Certificate.load(path: TestPaths.testcert("valid-127.0.0.1.pem")).first)
        let sent = forged + [genuine]
        let evaluator = try TrustEvaluator(configuration: .caFiles([TestPaths.testcert("attacker-ca.pem")]))
        let endpoint = Endpoint(host: "127.0.0.1", port: 443)
        let trusted = ConnectionJudge(evaluator: evaluator).chainVerdict(sent, negotiated: .tls13, for: endpoint)
        #expect(trusted.verdict.isTrusted, "the interceptor's CA is trusted here")
        let pins = PublicKeyPins(settingValues: ["127.0.0.1=\(genuine.spkiPin)"])
        let pinned = ConnectionJudge(evaluator: evaluator, requirements: ConnectionRequirements(pins: pins)).chainVerdict(
            sent, negotiated: .tls13, for: endpoint)
        #expect(!pinned.verdict.isTrusted)
        #expect(pinned.verdict.reasons.map(\.code.rawValue) == ["pin-mismatch"])
    }
}
