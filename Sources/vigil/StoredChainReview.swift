import VigilCertificates

extension TrustEvaluator {
    /// The evaluator a command's `--ca-file` options ask for: only those CAs, or the system store.
    init(caFilesOrSystem caFiles: [String]) throws {
        try self.init(configuration: caFiles.isEmpty ? .system : .caFiles(caFiles))
    }
}

/// A chain Vigil stored (an account's reviewed chain, an approved certificate), judged now and
/// rendered like `vigil inspect`: what `account show` and `certificates show` print.
enum StoredChainReview {
    static func text(_ chain: [Certificate], kind: String, label: String, peer: PeerName?, caFiles: [String]) throws -> String {
        let evaluation = try TrustEvaluator(caFilesOrSystem: caFiles).evaluate(chain, for: peer)
        let report = InspectReport(target: .init(kind: kind, url: label, files: nil, peerName: peer), evaluation: evaluation, sent: chain, connection: nil)
        return InspectTextRenderer(terminal: .standardOutput).render(report)
    }
}
