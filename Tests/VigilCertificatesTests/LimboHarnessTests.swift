import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

/// The harness contract on a small suite made from testcerts; the full x509-limbo run is in
/// `make test` (scripts/limbo.sh), scored by the suite's own scorer.
@Suite("x509-limbo harness")
struct LimboHarnessTests {
    func testcase(_ id: String, peer: String, chain: [String] = [], expected: String, name: String = "127.0.0.1", time: String? = "2030-01-01T00:00:00Z") throws
        -> [String: Any]
    {
        let read = { (file: String) in try String(contentsOfFile: TestPaths.testcert(file), encoding: .utf8) }
        return [
            "id": id, "features": [], "validation_kind": "SERVER",
            "trusted_certs": [try read("root-ca.pem")],
            "untrusted_intermediates": try chain.map(read),
            "peer_certificate": try read(peer),
            "validation_time": time as Any,
            "signature_algorithms": [], "key_usage": [], "extended_key_usage": [],
            "expected_result": expected,
            "expected_peer_name": ["kind": "IP", "value": name],
            "expected_peer_names": [], "max_chain_depth": NSNull(), "crls": [],
        ]
    }

    @Test func resultsFollowTheContract() throws {
        let suite: [String: Any] = [
            "version": 1,
            "testcases": [
                try testcase("valid", peer: "valid-127.0.0.1.pem", chain: ["intermediate-ca.pem"], expected: "SUCCESS"),
                try testcase("expired", peer: "expired.pem", chain: ["intermediate-ca.pem"], expected: "FAILURE"),
                try testcase("forged", peer: "mitm-forged.pem", chain: ["attacker-ca.pem"], expected: "FAILURE"),
                try testcase("no-time", peer: "valid-127.0.0.1.pem", chain: ["intermediate-ca.pem"], expected: "SUCCESS", time: nil),
            ],
        ]
        let output = try LimboHarness.run(suite: JSONSerialization.data(withJSONObject: suite))
        let json = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
        #expect(json["version"] as? Int == 1)
        #expect((json["harness"] as? String)?.isEmpty == false)
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(results.map { $0["id"] as? String } == ["valid", "expired", "forged", "no-time"])
        #expect(results.map { $0["actual_result"] as? String } == ["SUCCESS", "FAILURE", "FAILURE", "SUCCESS"])
        #expect(results.allSatisfy { $0.keys.contains("context") })
    }

    func run(_ testcases: [[String: Any]]) throws -> [[String: Any]] {
        let output = try LimboHarness.run(suite: JSONSerialization.data(withJSONObject: ["version": 1, "testcases": testcases]))
        let json = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
        return try #require(json["results"] as? [[String: Any]])
    }

    /// Caller-required key usages: the leaf's key usage must hold each one.
    @Test func requiredKeyUsagesAreChecked() throws {
        var held = try testcase("ku-held", peer: "valid-127.0.0.1.pem", chain: ["intermediate-ca.pem"], expected: "SUCCESS")
        held["key_usage"] = ["digitalSignature"]
        var lacking = try testcase("ku-lacking", peer: "valid-127.0.0.1.pem", chain: ["intermediate-ca.pem"], expected: "FAILURE")
        lacking["key_usage"] = ["keyCertSign"]
        let results = try run([held, lacking])
        #expect(results.map { $0["actual_result"] as? String } == ["SUCCESS", "FAILURE"])
        #expect((results[1]["context"] as? String)?.contains("keyCertSign") == true)
    }

    /// Several expected names: every one must hold; fractional validation times are read.
    @Test func everyExpectedNameMustHold() throws {
        var both = try testcase("names", peer: "valid-127.0.0.1.pem", chain: ["intermediate-ca.pem"], expected: "FAILURE", time: "2030-01-01T00:00:00.250Z")
        both["expected_peer_names"] = [["kind": "IP", "value": "127.0.0.1"], ["kind": "IP", "value": "127.0.0.2"]]
        var one = both
        one["id"] = "name"
        one["expected_peer_names"] = [["kind": "IP", "value": "127.0.0.1"]]
        let results = try run([both, one])
        #expect(results.map { $0["actual_result"] as? String } == ["FAILURE", "SUCCESS"])
    }

    @Test func unsupportedFeaturesAreSkippedNotPassed() throws {
        var skipped = try testcase("eku", peer: "valid-127.0.0.1.pem", chain: ["intermediate-ca.pem"], expected: "FAILURE")
        skipped["extended_key_usage"] = ["codeSigning"]
        let result = try #require(try run([skipped]).first)
        #expect(result["actual_result"] as? String == "SKIPPED")
        #expect((result["context"] as? String)?.contains("extended key usage") == true)
    }

    @Test func malformedSuiteThrows() {
        #expect(throws: (any Error).self) { try LimboHarness.run(suite: Data("{\"version\":1}".utf8)) }
    }
}
