public import VigilCertificates

/// The one place a TLS handshake becomes a verdict. Its policies decide in this order, each
/// adding typed reasons (docs/trust.md):
/// 1. the chain: path building and validation by profile, RFC 5280 policy processing, the
///    strict profile (``VigilCertificates/TrustEvaluator``);
/// 2. the protocol: `connection.minimum-tls-version` (`tls-version`), from OpenSSL's number;
/// 3. the pins: `connection.pinned-public-keys` (`pin-mismatch`), and a root added to this
///    machine's trust store under `connection.locally-added-roots` (`locally-added-root`,
///    `locally-added-root-refused`);
/// 4. revocation: the staple, the CA's OCSP responders and CRLs under
///    `connection.revocation-policy` (`revoked`, `must-staple-missing`, `revocation-unknown`).
///
/// What may still let an untrusted verdict through, an approval (the user's or the
/// administrator's), is the caller's: ``EvaluatorTrustPolicy`` on every connection, account setup
/// when it asks; ``VigilCertificates/ApprovalRule`` decides what no approval overrides. The HTTP
/// client asks steps 1 to 3 in OpenSSL's verify callback and step 4 in its status callback, both
/// before the client's next flight; every other command asks ``verdict(for:endpoint:given:)``
/// after a probe's handshake.
public struct ConnectionJudge: Sendable {
    /// Judges the chain (step 1).
    public var evaluator: TrustEvaluator
    /// The TLS version, the pins and the revocation checks (steps 2 to 4).
    public var requirements: ConnectionRequirements

    /// A judge with `evaluator` and, by default, TLS 1.2 or later, no pins and soft-fail revocation.
    public init(evaluator: TrustEvaluator, requirements: ConnectionRequirements = ConnectionRequirements()) {
        self.evaluator = evaluator
        self.requirements = requirements
    }

    /// Steps 1 to 3: the chain, the protocol (`negotiated`, nil for one Vigil does not know) and the pins.
    public func chainVerdict(_ chain: [Certificate], negotiated: TLSProtocolVersion?, for endpoint: Endpoint) -> TrustEvaluation {
        evaluator.evaluate(chain, for: endpoint.peerName)
            .requiring(tls: requirements.minimumTLSVersion, negotiated: negotiated)
            .requiring(pins: requirements.pins, for: endpoint, sent: chain)
            .requiring(locallyAddedRoots: requirements.locallyAddedRoots)
    }

    /// Step 4 (blocking: it may fetch, when a CA vouches for the chain). `given`: an OCSP
    /// response given offline. A chain no CA vouches for (a self-signed leaf or an unknown CA,
    /// even approved by the user) has no revocation statement that counts: its staple is read,
    /// its addresses are not asked (``VigilCertificates/RevocationReport``).
    public func revocationVerdict(_ evaluation: TrustEvaluation, chain: [Certificate], staple: [UInt8]?, given: [UInt8]? = nil) -> TrustEvaluation {
        requirements.revocation.apply(to: evaluation, sent: chain, staple: staple, given: given, mayFetch: true)
    }

    /// Every step, for a probe's completed handshake (revocation on a thread of its own).
    public func verdict(for handshake: TLSProbe.Handshake, endpoint: Endpoint, given: [UInt8]? = nil) async -> TrustEvaluation {
        let evaluation = chainVerdict(handshake.chain, negotiated: handshake.negotiated, for: endpoint)
        // The CA's responders and CRLs only for a chain a CA vouches for (the report decides): a
        // chain under review could name any URL, and Vigil does not go where a hostile server points.
        return await requirements.revocation.apply(to: evaluation, sent: handshake.chain, staple: handshake.staple, given: given, mayFetch: true)
    }
}
