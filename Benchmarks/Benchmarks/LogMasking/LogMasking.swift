import Benchmark
import Foundation
import Logging
import VigilLogging

/// One million records through Vigil's masking handler (plus its writer) against swift-log's
/// StreamLogHandler writing the same records unmasked. Both write each record to standard
/// error, pointed at /dev/null, so formatting and masking are what is compared.
let benchmarks: @Sendable () -> Void = {
    let devNull = open("/dev/null", O_WRONLY)
    dup2(devNull, STDERR_FILENO)

    let users = (0..<64).map { "user\($0)@example.com" }
    let configuration = Benchmark.Configuration(
        metrics: [.throughput, .wallClock, .peakMemoryResident],
        scalingFactor: .kilo,
        maxDuration: .seconds(60),
        maxIterations: 1000
    )

    // One iteration = 1,000 records; 1,000 iterations = one million records.
    Benchmark("StreamLogHandler, unmasked (anchor)", configuration: configuration) { benchmark in
        let logger = Logger(label: "vigil.bench") { StreamLogHandler.standardError(label: $0) }
        var index = 0
        for _ in benchmark.scaledIterations {
            let user = users[index & 63]
            index += 1
            logger.info("Download by \(user) of /remote.php/dav/files/\(index) finished", metadata: ["status": "200", "request-id": "\(index)"])
        }
    }

    Benchmark("Vigil masking handler", configuration: configuration) { benchmark in
        var logConfiguration = LogConfiguration()
        logConfiguration.level = .info
        let handler = logConfiguration.handler(label: "vigil.bench", sinks: [StandardErrorSink(minimumLevel: .info)])
        let logger = Logger(label: "vigil.bench") { _ in handler }
        var index = 0
        for _ in benchmark.scaledIterations {
            let user = users[index & 63]
            index += 1
            logger.privacy.info(
                "Download by \(user) of /remote.php/dav/files/\(index) finished", metadata: ["status": .public("200"), "request-id": "\(index)"])
        }
    }
}
