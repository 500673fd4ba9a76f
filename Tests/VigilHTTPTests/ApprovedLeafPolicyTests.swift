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
        let policy = EvaluatorTrustPolicy(evaluator: try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle])), approvedLeaves: [leaf.sha256Fingerprint])
        let decision = policy.decide(chain: chain, for: Endpoint(host: "127.0.0.1", port: 443))
        #expect(decision.allowsRequest == allowed, "\(name)")
    }
}
