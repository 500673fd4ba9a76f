// swift-tools-version: 6.1
// Vigil's benchmarks (package-benchmark). Run: make bench (or swift package benchmark here).
import PackageDescription

let package = Package(
    name: "VigilBenchmarks",
    dependencies: [
        // Named explicitly: a path package is otherwise named after its folder, which differs by clone.
        .package(name: "vigil", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "CertificateSummary",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "VigilCertificates", package: "vigil"),
            ],
            path: "Benchmarks/CertificateSummary",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        .executableTarget(
            name: "LogMasking",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "VigilLogging", package: "vigil"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/LogMasking",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
