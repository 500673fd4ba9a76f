import Foundation
import VigilCertificates

/// The trust evaluator, made once: the test CA as the only anchor, a fixed time.
let evaluator: TrustEvaluator? = {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("testcerts/ca-bundle.pem").path
    var configuration = TrustEvaluator.Configuration.caFiles([root])
    configuration.useSystemStore = false
    configuration.time = Date(timeIntervalSince1970: 1_800_000_000)
    return try? TrustEvaluator(configuration: configuration)
}()

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// SwiftPM links an executable target's entry point under this name; libFuzzer's driver runs here.
@_cdecl("FuzzCertificates_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, fuzzOne)
}

/// One input: whatever a hostile server or file could hand Vigil, as DER, PEM or garbage.
func fuzzOne(_ data: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    guard let certificates = try? Certificate.parse(bytes), !certificates.isEmpty else { return 0 }
    let peer = PeerName(host: "127.0.0.1")
    for (index, certificate) in certificates.enumerated() {
        _ = certificate.summary(role: index == 0 ? .leaf : .intermediate, peerName: index == 0 ? peer : PeerName(host: "*.example.co.uk"))
    }
    if let evaluator {
        let evaluation = evaluator.evaluate(certificates, for: peer)
        _ = evaluation.summaries(of: certificates)
    }
    return 0
}
