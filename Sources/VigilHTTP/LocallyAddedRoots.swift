import VigilCertificates

/// `connection.locally-added-roots`: what a chain that ends in a root added to this machine's
/// trust store (not a public root: a TLS-inspecting proxy, a private CA) may do.
public enum LocallyAddedRoots: String, Sendable, Hashable, CaseIterable {
    /// The organisation's choice stands: trusted, judged by the rfc5280 profile, with a finding.
    case trust
    /// Untrusted until the user approves the server's certificate after review (account setup asks).
    case ask
    /// Untrusted, and no approval overrides it.
    case refuse
}

extension TrustEvaluation {
    /// A trusted chain through a locally added root, made untrusted under `ask` (approvable) or
    /// `refuse` (never approvable); the finding that names the root stays.
    func requiring(locallyAddedRoots policy: LocallyAddedRoots) -> TrustEvaluation {
        guard policy != .trust, let anchor else { return self }
        // Where the public roots are not known, no root of the system store can be told public:
        // under ask or refuse it is not trusted as one.
        let unknown = anchor.source == .systemStore && !PublicRoots.isKnown
        guard anchor.source == .locallyAdded || unknown else { return self }
        let root = "\(anchor.anchorSubject) (SHA-256 \(anchor.anchorSHA256))"
        let what =
            unknown
            ? "a root of the system trust store, and which of its roots are public is not known here (no list at \(PublicRoots.location))"
            : "a root added to this machine's trust store, not a public root"
        let reason =
            policy == .ask
            ? TrustReason(
                code: .locallyAddedRoot,
                message:
                    "The chain ends in \(root), \(what); connection.locally-added-roots is ask: review and approve this server's certificate, or refuse it.")
            : TrustReason(
                code: .locallyAddedRootRefused,
                message:
                    "The chain ends in \(root), \(what); connection.locally-added-roots is refuse: a TLS-inspecting proxy or a private CA is not trusted here, and no approval overrides it."
            )
        var evaluation = self
        evaluation.verdict = .untrusted(verdict.reasons + [reason])
        return evaluation
    }
}
