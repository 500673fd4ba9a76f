import VigilCertificates

/// What a live connection must meet beyond its chain: `connection.minimum-tls-version`,
/// `connection.pinned-public-keys` and `connection.revocation-policy`, as ``ConnectionJudge``
/// applies them.
public struct ConnectionRequirements: Sendable {
    /// The oldest TLS version accepted (`connection.minimum-tls-version`).
    public var minimumTLSVersion: TLSProtocolVersion
    /// The public-key pins per host (`connection.pinned-public-keys`).
    public var pins: PublicKeyPins
    /// The revocation checks (`connection.revocation-policy`).
    public var revocation: RevocationChecker

    /// TLS 1.2 or later, no pins and soft-fail revocation unless given.
    public init(minimumTLSVersion: TLSProtocolVersion = .tls12, pins: PublicKeyPins = PublicKeyPins(), revocation: RevocationChecker = RevocationChecker()) {
        self.minimumTLSVersion = minimumTLSVersion
        self.pins = pins
        self.revocation = revocation
    }
}
