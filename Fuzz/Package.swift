// swift-tools-version: 6.1
// Coverage-guided fuzzing of Vigil's certificate parsing, summary and trust evaluation with
// libFuzzer. Separate from the main package so its sanitizer flags never reach a normal build.
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
    ]
)
