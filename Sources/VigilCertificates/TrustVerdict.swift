/// The outcome of trust evaluation. Evaluation never throws for an untrusted chain: the
/// verdict says why, in plain words, with OpenSSL's code where it has one.
public enum TrustVerdict: Sendable, Hashable {
    /// The chain leads to a trust anchor and passed every check.
    case trusted(TrustBasis)
    /// The chain failed; every reason found, in the order found.
    case untrusted([TrustReason])

    public var isTrusted: Bool {
        if case .trusted = self { return true }
        return false
    }

    /// Every reason the chain is untrusted (empty when trusted).
    public var reasons: [TrustReason] {
        if case .untrusted(let reasons) = self { return reasons }
        return []
    }
}
