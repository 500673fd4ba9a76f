// swift-tools-version: 6.1
// Vigil's benchmarks (package-benchmark). Run: make bench (or swift package benchmark here).
import PackageDescription

let package = Package(
    name: "VigilBenchmarks",
    dependencies: [
        // Named explicitly: a path package is otherwise named after its folder, which differs by clone.
        .package(name: "vigil", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
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
    ]
)
