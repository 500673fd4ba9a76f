import VigilAccounts
import VigilCertificates
import VigilSettings

/// A chain Vigil stored (an account's reviewed chain, an approved certificate), judged now and
/// rendered like `vigil inspect`: what `account show` and `certificates show` print.
enum StoredChainReview {
    static func text(_ chain: [Certificate], kind: String, label: String, peer: PeerName?, caFiles: [String], settings: Settings) throws -> String {
        let evaluation = try TrustEvaluator(caFilesOrSystem: caFiles, settings: settings).evaluate(chain, for: peer)
        let report = InspectReport(target: .init(kind: kind, url: label, files: nil, peerName: peer), evaluation: evaluation, sent: chain, connection: nil)
        return InspectTextRenderer(terminal: .standardOutput).render(report)
    }
}
