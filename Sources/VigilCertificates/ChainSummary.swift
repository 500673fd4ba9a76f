/// The chain as the server sent it and as verification built it.
public struct ChainSummary: Codable, Sendable, Hashable {
    /// One certificate of a chain, as listed.
    public struct Entry: Codable, Sendable, Hashable {
        /// Subject DN, RFC 4514 order.
        public var subject: String
        /// Issuer DN, RFC 4514 order.
        public var issuer: String
        /// SHA-256 of the DER, colon-separated upper-case hex.
        public var sha256: String
        /// Leaf, intermediate or root, by its position in this list.
        public var role: CertificateRole
        /// Subject equals issuer and the key identifiers agree (the signature is not checked here).
        public var isSelfSigned: Bool
        /// For the verified chain: this certificate is the trust anchor.
        public var isAnchor: Bool
    }
    /// Certificates in the order received (leaf first).
    public var sent: [Entry]
    /// Certificates in verification order, leaf to anchor (or as far as it got).
    public var verified: [Entry]
    /// The server sent the root (self-signed) certificate itself.
    public var rootSent: Bool
    /// Each sent certificate is followed by its issuer.
    public var sentInOrder: Bool
    /// Issuer names that could be found neither in what was sent nor in the trust store.
    public var missingIssuers: [String]
    /// Indices of sent certificates the verified chain does not use.
    public var unusedSent: [Int]
    /// How many paths were evaluated: 1 when the chain as sent decided; more when it failed and
    /// other paths through the sent certificates were tried (path building, ``TrustEvaluator``).
    public var pathsTried = 1
    /// The trusted path is not the chain as sent but one built from its certificates.
    public var builtFromAlternative = false
}
