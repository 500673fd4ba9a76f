import VigilCertificates

/// What a live connection must meet beyond its chain: `connection.minimum-tls-version`,
/// `connection.pinned-public-keys` and `connection.revocation-policy`, as ``ConnectionJudge``
/// applies them.
public struct ConnectionRequirements: Sendable {
    public var minimumTLSVersion: TLSProtocolVersion
    public var pins: PublicKeyPins
    public var revocation: RevocationChecker

    public init(minimumTLSVersion: TLSProtocolVersion = .tls12, pins: PublicKeyPins = PublicKeyPins(), revocation: RevocationChecker = RevocationChecker()) {
        self.minimumTLSVersion = minimumTLSVersion
        self.pins = pins
        self.revocation = revocation
    }
}
