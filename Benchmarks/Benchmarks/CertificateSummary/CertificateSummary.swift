import Benchmark
import Foundation
import VigilCertificates

/// The certificates both this benchmark and the C baseline (baseline/summary_loop.c) use:
/// the Mozilla bundle in /etc/ssl/certs plus every certificate in testcerts/.
func corpus() -> [[UInt8]] {
    var files = ["/etc/ssl/certs/ca-certificates.crt"]
    let testcerts = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("testcerts")
    let names = (try? FileManager.default.contentsOfDirectory(atPath: testcerts.path)) ?? []
    files += names.filter { $0.hasSuffix(".pem") && !$0.hasSuffix("-chain.pem") && $0 != "ca-bundle.pem" }
        .sorted().map { testcerts.appendingPathComponent($0).path }
    return files.flatMap { (try? Certificate.load(path: $0)) ?? [] }.map(\.derEncoded)
}

let benchmarks: @Sendable () -> Void = {
    let certificates = corpus()
    let now = Date()
    // One iteration = parse every certificate of the corpus from DER and build its full summary,
    // so that wall clock / corpus size is the mean cost the C baseline's average compares with.
    // 62 passes over the 161-certificate corpus are 10,000 certificates.
    Benchmark(
        "Certificate summary, one pass over the corpus",
        configuration: .init(
            metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal],
            scalingFactor: .one,
            maxDuration: .seconds(30),
            maxIterations: max(1, 10_000 / max(1, certificates.count))
        )
    ) { benchmark in
        for _ in benchmark.scaledIterations {
            for der in certificates {
                let certificate = try Certificate(derEncoded: der)
                blackHole(certificate.summary(at: now, role: .leaf, peerName: nil))
            }
        }
    }
}
