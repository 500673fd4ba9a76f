/// The outcome of trust evaluation. Evaluation never throws for an untrusted chain: the
/// verdict says why, in plain words, with OpenSSL's code where it has one.
public enum TrustVerdict: Sendable, Hashable {
    /// The chain leads to a trust anchor and passed every check.
    case trusted(TrustBasis)
    /// The chain failed; every reason found, in the order found.
    case untrusted([TrustReason])

    /// True for ``trusted(_:)``.
    public var isTrusted: Bool {
        if case .trusted = self { return true }
        return false
    }

    /// True when a reason is that the leaf is not valid for the name asked (host name or IP
    /// address): such a certificate can never be approved for that name.
    public var isForAnotherName: Bool {
        reasons.contains { $0.code == .hostnameMismatch || $0.code == .ipMismatch }
    }

    /// Every reason the chain is untrusted (empty when trusted).
    public var reasons: [TrustReason] {
        if case .untrusted(let reasons) = self { return reasons }
        return []
    }
}
