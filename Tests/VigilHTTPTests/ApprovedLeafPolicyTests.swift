import Testing
import VigilCertificates
import VigilHTTP
import VigilTestSupport

/// The trust policy honours an approval only for what may be approved: an approval already in
/// the database does not open the way to a weak key, a weak signature or a CA as leaf.
@Suite("Approved leaves in the trust policy")
struct ApprovedLeafPolicyTests {
    @Test(arguments: [("rsa-1024", false), ("sha1-intermediate", false), ("ca-as-leaf", false), ("self-signed", true), ("expired", true)])
    func anApprovalCountsOnlyWhereTheRuleAllowsIt(name: String, allowed: Bool) throws {
        let chain = try Certificate.load(path: TestPaths.testcert("\(name)-chain.pem"))
        let leaf = try #require(chain.first)
        let endpoint = Endpoint(host: "127.0.0.1", port: 443)
        let policy = EvaluatorTrustPolicy(
            evaluator: try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])), approvals: [endpoint: [leaf.sha256Fingerprint]])
        let decision = policy.decide(chain: chain, negotiated: .tls13, for: endpoint)
        #expect(decision.allowsRequest == allowed, "\(name)")
        // The same approval for another port or host counts for nothing.
        #expect(!policy.decide(chain: chain, negotiated: .tls13, for: Endpoint(host: "127.0.0.1", port: 8443)).allowsRequest)
        #expect(!policy.decide(chain: chain, negotiated: .tls13, for: Endpoint(host: "127.0.0.2", port: 443)).allowsRequest)
    }
}
