public import VigilCertificates

/// What a live connection must meet beyond its chain: `connection.minimum-tls-version` and
/// `connection.pinned-public-keys`. One place folds both into a verdict, for every command that
/// judges a handshake (inspect, account setup and check, certificates approve and audit).
public struct ConnectionRequirements: Sendable, Hashable {
    public var minimumTLSVersion: TLSProtocolVersion
    public var pins: PublicKeyPins

    public init(minimumTLSVersion: TLSProtocolVersion = .tls12, pins: PublicKeyPins = PublicKeyPins()) {
        self.minimumTLSVersion = minimumTLSVersion
        self.pins = pins
    }

    /// `evaluation` of `handshake`'s chain, made untrusted when the protocol is below the minimum
    /// or a pinned endpoint's chain holds no pinned key.
    public func apply(to evaluation: TrustEvaluation, handshake: TLSProbe.Handshake, endpoint: Endpoint) -> TrustEvaluation {
        evaluation.requiring(tls: minimumTLSVersion, negotiated: handshake.protocolVersion)
            .requiring(pins: pins, for: endpoint, sent: handshake.chain)
    }
}
