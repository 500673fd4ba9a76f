extension TrustEvaluation {
    /// The chain's root, when it is a locally added one (``TrustBasis/Source/locallyAdded``),
    /// whatever the verdict.
    public var locallyAddedAnchor: TrustBasis? {
        if let anchor, anchor.source == .locallyAdded { return anchor }
        return nil
    }

    /// Where the server's own certificate is known (`known`: leaf SHA-256 fingerprints, from
    /// `knownFrom`: an approval, an account's reviewed chain), a different leaf through a locally
    /// added root is an interception: the finding says so outright. Unchanged otherwise.
    public func markingInterception(leaf: Certificate?, known: Set<String>, knownFrom: String) -> TrustEvaluation {
        guard let anchor = locallyAddedAnchor, let leaf, !known.isEmpty, !known.contains(leaf.sha256Fingerprint) else { return self }
        var evaluation = self
        evaluation.findings.append(
            Finding(
                .interception, .critical,
                "Interception: this server's certificate is known (\(knownFrom)), and another one (SHA-256 \(leaf.sha256Fingerprint)) came through \(anchor.anchorSubject), a root added to this machine's trust store. Someone between you and the server reads this connection."
            ))
        return evaluation
    }
}
