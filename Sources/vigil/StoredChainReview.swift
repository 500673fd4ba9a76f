import VigilAccounts
import VigilCertificates
import VigilSettings

/// A chain Vigil stored (an account's reviewed chain, an approved certificate), judged now and
/// rendered like `vigil inspect`: what `account show` and `certificates show` print.
enum StoredChainReview {
    /// `approved`: an active approval covers the chain's leaf (the title says APPROVED when the
    /// chain alone is not trusted).
    static func text(
        _ chain: [Certificate], kind: String, label: String, peer: PeerName?, caFiles: [String], settings: Settings, anchors: [Certificate]? = nil,
        approved: Bool = false
    ) throws -> String {
        let evaluation = try evaluator(caFiles: caFiles, settings: settings, anchors: anchors).evaluate(chain, for: peer)
        let report = InspectReport(target: .init(kind: kind, url: label, files: nil, peerName: peer), evaluation: evaluation, sent: chain, connection: nil)
        // An approval holds only for what an approval can make safe (ApprovalRule).
        let holds = approved && ApprovalRule.refusals(evaluation, sent: chain).isEmpty
        return InspectTextRenderer(terminal: .standardOutput).render(report, approved: holds)
    }

    /// `--ca-file` when given; else the account's own CA certificates (`anchors`) when it has
    /// some; else the system store, each with the settings' policy inputs.
    static func evaluator(caFiles: [String], settings: Settings, anchors: [Certificate]?) throws -> TrustEvaluator {
        let named = try TrustEvaluator(caFilesOrSystem: caFiles, settings: settings)
        guard caFiles.isEmpty, let anchors else { return named }
        return try TrustEvaluator(configuration: named.configuration.onlyTrusting(anchors))
    }
}
