public import FoundationEssentials
import Glibc

/// An x509-limbo harness (contract: shared/conformance/x509-limbo/README.md) over the same
/// ``TrustEvaluator`` the product uses.
public enum LimboHarness {
    /// The harness name written in the results.
    public static let name = "vigil-openssl-0.1"

    struct Suite: Decodable {
        var version: Int
        var testcases: [Testcase]
    }

    struct Testcase: Decodable {
        struct Name: Decodable {
            var kind: String
            var value: String
        }
        var id: String
        var features: [String]?
        var validation_kind: String
        var trusted_certs: [String]
        var untrusted_intermediates: [String]
        var peer_certificate: String
        var validation_time: String?
        var signature_algorithms: [String]?
        var key_usage: [String]?
        var extended_key_usage: [String]?
        var expected_peer_name: Name?
        var expected_peer_names: [Name]?
        var max_chain_depth: Int?
        var crls: [String]?
    }

    /// One testcase's outcome.
    public struct Result: Codable, Sendable {
        /// The testcase's id.
        public var id: String
        /// `SUCCESS`, `FAILURE` or `SKIPPED`.
        public var actual_result: String
        /// The anchor, the reasons or why the case was skipped.
        public var context: String?

        /// Writes all three keys; `context` as null when nil.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(actual_result, forKey: .actual_result)
            try container.encode(context, forKey: .context)  // present even when null
        }
    }

    struct Output: Encodable {
        var version = 1
        var harness = LimboHarness.name
        var results: [Result]
    }

    /// Reads the suite JSON and returns the results JSON.
    public static func run(suite data: Data) throws -> Data {
        let suite = try JSONDecoder().decode(Suite.self, from: data)
        let results = suite.testcases.map(evaluate)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(Output(results: results))
    }

    /// An RFC 3339 time, with or without fractional seconds.
    static func parseTime(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        return try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)
    }

    static func evaluate(_ testcase: Testcase) -> Result {
        func result(_ actual: String, _ context: String?) -> Result { Result(id: testcase.id, actual_result: actual, context: context) }
        if let usages = testcase.extended_key_usage, !usages.isEmpty, usages != ["serverAuth"], usages != ["clientAuth"] {
            return result("SKIPPED", "caller-specified extended key usage other than serverAuth/clientAuth is not supported")
        }
        do {
            let anchors = try testcase.trusted_certs.flatMap { try Certificate.parsePEM($0) }
            let intermediates = try testcase.untrusted_intermediates.flatMap { try Certificate.parsePEM($0) }
            let peer = try Certificate.parsePEM(testcase.peer_certificate)
            var configuration = TrustEvaluator.Configuration.anchors(anchors)
            // Limbo's namespaces say which standard a case tests: webpki:: and online:: (real
            // public chains) the Web PKI profile; rfc5280::, pathlen::, crl::, cve:: and the rest
            // RFC 5280 itself, as the chain of a private CA is judged.
            let webPKI = testcase.id.hasPrefix("webpki::") || testcase.id.hasPrefix("online::")
            configuration.profile = .forced(webPKI ? .webpki : .rfc5280)
            configuration.purpose = testcase.validation_kind == "CLIENT" ? .clientAuth : .serverAuth
            if testcase.extended_key_usage == ["clientAuth"] { configuration.purpose = .clientAuth }
            configuration.maximumIntermediates = testcase.max_chain_depth
            configuration.crlsPEM = testcase.crls ?? []
            if let time = testcase.validation_time {
                guard let date = parseTime(time) else {
                    return result("SKIPPED", "unparseable validation_time \(time)")
                }
                configuration.time = date
            }
            // Every name the case expects must hold: one evaluation per name.
            var peerNames: [PeerName?] = []
            for name in (testcase.expected_peer_name.map { [$0] } ?? []) + (testcase.expected_peer_names ?? []) {
                switch name.kind {
                case "DNS": peerNames.append(PeerName(kind: .dns, value: name.value))
                case "IP": peerNames.append(PeerName(kind: .ip, value: name.value))
                case "RFC822": peerNames.append(PeerName(kind: .email, value: name.value))
                default: return result("SKIPPED", "peer name kind \(name.kind) is not supported")
                }
            }
            if peerNames.isEmpty { peerNames = [nil] }
            let evaluator = try TrustEvaluator(configuration: configuration)
            var anchor = ""
            for peerName in peerNames {
                let evaluation = evaluator.evaluate(peer + intermediates, for: peerName)
                switch evaluation.verdict {
                case .trusted(let basis): anchor = basis.anchorSubject
                case .untrusted(let reasons): return result("FAILURE", reasons.map(\.description).joined(separator: "; "))
                }
                // The key usages the caller requires (RFC 5280 4.2.1.3: no extension, no restriction).
                if let required = testcase.key_usage, !required.isEmpty, let usages = peer.first?.keyUsage {
                    let missing = required.filter { !usages.contains($0) }
                    if !missing.isEmpty { return result("FAILURE", "the leaf's key usage lacks \(missing.joined(separator: ", "))") }
                }
            }
            return result("SUCCESS", "anchor: \(anchor)")
        } catch {
            // A certificate OpenSSL cannot even parse is rejected, as the product would.
            return result("FAILURE", "parse: \(error)")
        }
    }
}
