import VigilCertificates

/// `connection.pinned-public-keys`: per host (and port, when given), the SPKI SHA-256 pins
/// (RFC 7469, base64) of which the chain must contain at least one. A pinned host accepts no
/// other chain, even one a CA trusts (a TLS-inspecting proxy with a trusted CA), and no approval
/// overrides a pin (``VigilCertificates/ApprovalRule``).
public struct PublicKeyPins: Sendable, Hashable {
    private var values = HostKeyedValues()

    /// No pins.
    public init() {}

    /// From the setting's `HOST[:PORT]=PIN` items (validated by the settings catalogue).
    public init(settingValues: [String]) {
        values = HostKeyedValues(settingValues: settingValues) { $0 }
    }

    /// True when no host is pinned.
    public var isEmpty: Bool { values.isEmpty }

    /// The pins for `endpoint`: those for its host and port, and those for its host alone.
    public func pins(for endpoint: Endpoint) -> Set<String> { values.values(for: endpoint) }
}

extension TrustEvaluation {
    /// A pinned endpoint whose verified path (or, when the chain is not trusted, whose leaf) holds
    /// none of its pinned keys is untrusted with the reason `pin-mismatch`, whatever else vouches for it.
    func requiring(pins: PublicKeyPins, for endpoint: Endpoint, sent: [Certificate]) -> TrustEvaluation {
        let wanted = pins.pins(for: endpoint)
        guard !wanted.isEmpty else { return self }
        // Only certificates that vouch for this connection count: the verified path of a trusted
        // chain, or the leaf alone otherwise. An extra certificate the server merely sends (the
        // genuine leaf appended by an interceptor) proves nothing.
        let vouching = verdict.isTrusted ? verifiedChain : Array(sent.prefix(1))
        if vouching.contains(where: { wanted.contains($0.spkiPin) }) { return self }
        let reason = TrustReason(
            code: .pinMismatch,
            message: "\(endpoint) is pinned (connection.pinned-public-keys), and no certificate in its chain has a pinned key.")
        var evaluation = self
        evaluation.verdict = .untrusted(verdict.reasons + [reason])
        return evaluation
    }
}
