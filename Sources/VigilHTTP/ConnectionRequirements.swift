public import VigilCertificates

/// What a live connection must meet beyond its chain: `connection.minimum-tls-version`,
/// `connection.pinned-public-keys` and `connection.revocation-policy`. One place folds them into a
/// verdict, for every command that judges a handshake (inspect, account setup and check,
/// certificates approve and audit); the HTTP client's trust policy applies the same checks.
public struct ConnectionRequirements: Sendable {
    public var minimumTLSVersion: TLSProtocolVersion
    public var pins: PublicKeyPins
    public var revocation: RevocationChecker

    public init(minimumTLSVersion: TLSProtocolVersion = .tls12, pins: PublicKeyPins = PublicKeyPins(), revocation: RevocationChecker = RevocationChecker()) {
        self.minimumTLSVersion = minimumTLSVersion
        self.pins = pins
        self.revocation = revocation
    }

    /// `evaluation` of `handshake`'s chain, made untrusted when the protocol is below the minimum,
    /// a pinned endpoint's chain holds no pinned key, or revocation says so (the staple, then
    /// the CA's responders and CRLs, as the policy asks; this may fetch, on a thread of its own).
    /// `given`: an OCSP response given offline (`vigil inspect --ocsp-response`).
    public func apply(to evaluation: TrustEvaluation, handshake: TLSProbe.Handshake, endpoint: Endpoint, given: [UInt8]? = nil) async -> TrustEvaluation {
        let checked = evaluation.requiring(tls: minimumTLSVersion, negotiated: handshake.protocolVersion)
            .requiring(pins: pins, for: endpoint, sent: handshake.chain)
        return await revocation.apply(to: checked, sent: handshake.chain, staple: handshake.staple, given: given)
    }
}
