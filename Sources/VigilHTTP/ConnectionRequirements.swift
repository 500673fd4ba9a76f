import VigilCertificates

/// What a live connection must meet beyond its chain: `connection.minimum-tls-version`,
/// `connection.pinned-public-keys`, `connection.revocation-policy` and
/// `connection.locally-added-roots`, as ``ConnectionJudge``
/// applies them.
public struct ConnectionRequirements: Sendable {
    /// The oldest TLS version accepted (`connection.minimum-tls-version`).
    public var minimumTLSVersion: TLSProtocolVersion
    /// The public-key pins per host (`connection.pinned-public-keys`).
    public var pins: PublicKeyPins
    /// The revocation checks (`connection.revocation-policy`).
    public var revocation: RevocationChecker
    /// Chains through a root added to this machine's trust store (`connection.locally-added-roots`).
    public var locallyAddedRoots: LocallyAddedRoots = .trust

    /// TLS 1.2 or later, no pins and soft-fail revocation unless given.
    public init(minimumTLSVersion: TLSProtocolVersion = .tls12, pins: PublicKeyPins = PublicKeyPins(), revocation: RevocationChecker = RevocationChecker()) {
        self.minimumTLSVersion = minimumTLSVersion
        self.pins = pins
        self.revocation = revocation
    }
}
