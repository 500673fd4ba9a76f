// swift-tools-version: 6.1
// Coverage-guided fuzzing with libFuzzer: certificate parsing, summary and trust evaluation
// (FuzzCertificates), and the parsers of ParserTarget (FuzzParsers). Separate from the main package so its sanitizer flags never reach a normal build.
// Run: make fuzz (scripts/fuzz.sh). Not a test: it runs for a fixed time and reports.
import PackageDescription

let package = Package(
    name: "VigilFuzz",
    dependencies: [.package(name: "vigil", path: "..")],
    targets: [
        .executableTarget(
            name: "FuzzCertificates",
            dependencies: [.product(name: "VigilCertificates", package: "vigil")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])],
            // gold fails on libFuzzer's objects; the sanitizer flags come from scripts/fuzz.sh
            // so that VigilCertificates is instrumented too.
            linkerSettings: [.unsafeFlags(["-use-ld=lld"])]
        ),
        .executableTarget(
            name: "FuzzParsers",
            dependencies: [
                .product(name: "VigilAuth", package: "vigil"),
                .product(name: "VigilAccounts", package: "vigil"),
                .product(name: "VigilHTTP", package: "vigil"),
                .product(name: "VigilRules", package: "vigil"),
                .product(name: "VigilSettings", package: "vigil"),
                .product(name: "VigilSimulator", package: "vigil"),
                .product(name: "VigilCertificates", package: "vigil"),
                .product(name: "VigilText", package: "vigil"),
            ],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])],
            linkerSettings: [.unsafeFlags(["-use-ld=lld"])]
        ),
    ]
)
