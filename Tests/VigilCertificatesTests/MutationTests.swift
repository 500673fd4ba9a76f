import Foundation
import Testing
import VigilCertificates
import VigilTestSupport

/// Hostile certificates: seeded random mutations of every test certificate go through parsing,
/// the summary and trust evaluation. Any of them may be rejected; none may crash the process.
@Suite("Mutated certificates")
struct MutationTests {
    static func corpus() throws -> [[UInt8]] {
        let names = try FileManager.default.contentsOfDirectory(atPath: TestPaths.testcert(""))
            .filter { $0.hasSuffix(".pem") && !$0.hasSuffix("-chain.pem") }.sorted()
        return try names.flatMap { try Certificate.load(path: TestPaths.testcert($0)) }.map(\.derEncoded)
    }

    @Test func mutatedDERNeverCrashes() throws {
        let corpus = try Self.corpus()
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0F_7E57)
        let evaluator = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle]))
        var parsed = 0, rejected = 0
        for round in 0..<3000 {
            var bytes = corpus[round % corpus.count]
            switch random.next() % 4 {
            case 0:  // flip a few bytes
                for _ in 0..<(1 + random.next() % 4) { bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: random.next() | 1) }
            case 1:  // truncate
                bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            case 2:  // set a length byte to an extreme
                bytes[Int(random.next() % UInt64(bytes.count))] = [0x00, 0x7F, 0x80, 0x81, 0x84, 0xFF][Int(random.next() % 6)]
            default:  // splice a piece of another certificate in
                let other = corpus[Int(random.next() % UInt64(corpus.count))]
                let start = Int(random.next() % UInt64(other.count))
                let piece = other[start..<min(other.count, start + 1 + Int(random.next() % 64))]
                let at = Int(random.next() % UInt64(bytes.count))
                bytes.replaceSubrange(at..<min(bytes.count, at + piece.count), with: piece)
            }
            do {
                let certificate = try Certificate(derEncoded: bytes)
                parsed += 1
                let summary = certificate.summary(peerName: PeerName(host: "127.0.0.1"))
                #expect(!summary.fingerprints.sha256.isEmpty)
                _ = evaluator.evaluate([certificate], for: PeerName(host: "127.0.0.1"))
            } catch let error as CertificateError {
                rejected += 1
                #expect(!error.reason.isEmpty)
            }
        }
        #expect(parsed + rejected == 3000)
        #expect(parsed > 0 && rejected > 0, "both paths were exercised: \(parsed) parsed, \(rejected) rejected")
    }

    @Test func mutatedPEMNeverCrashes() throws {
        let text = try String(contentsOfFile: TestPaths.testcert("valid-127.0.0.1-chain.pem"), encoding: .utf8)
        #expect(try Certificate.parsePEM(text).count == 2, "the unmutated chain parses")
        var random = SeededRandom(seed: 42)
        let characters = Array(text)
        var refused = 0
        for _ in 0..<500 {
            var mutated = characters
            for _ in 0..<(1 + random.next() % 3) {
                mutated[Int(random.next() % UInt64(mutated.count))] = ["-", "=", "\n", "A", "/", "\u{0}", "é"][Int(random.next() % 7)]
            }
            // Parsed or refused with an error; either way each certificate that comes back is whole.
            if let certificates = try? Certificate.parsePEM(String(mutated)) {
                #expect(certificates.allSatisfy { !$0.sha256Fingerprint.isEmpty })
            } else {
                refused += 1
            }
        }
        #expect(refused > 0, "some mutations must break the PEM")
    }
}
