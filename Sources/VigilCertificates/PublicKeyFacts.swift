/// A certificate's public key as OpenSSL parsed it. Decisions (the strict profile, findings, what
/// can be approved) read these values; the summary's `publicKey` is the same facts as text.
struct PublicKeyFacts: Sendable, Hashable {
    enum Algorithm: Sendable, Hashable {
        case rsa, rsaPSS, ec, ed25519, ed448, dsa
        /// A key type Vigil has no rules for, with OpenSSL's name.
        case other(String)

        /// How the summary names it.
        var name: String {
            switch self {
            case .rsa: "RSA"
            case .rsaPSS: "RSA-PSS"
            case .ec: "EC"
            case .ed25519: "Ed25519"
            case .ed448: "Ed448"
            case .dsa: "DSA"
            case .other(let name): name
            }
        }

        /// RSA (either encoding) or DSA: strength grows with the modulus.
        var isFiniteField: Bool { self == .rsa || self == .rsaPSS || self == .dsa }
    }

    var algorithm: Algorithm
    /// Key size in bits (RSA modulus, EC field).
    var bits: Int
    var rsaExponent: String?
    /// OpenSSL's group name for an EC key (`prime256v1`).
    var curve: String?

    /// The curves the Web PKI allows: P-256, P-384, P-521.
    static let webPKICurves: Set<String> = ["prime256v1", "secp384r1", "secp521r1"]
}

/// A signature's digest as OpenSSL reads it (``Certificate/signatureDigestFacts``).
struct SignatureDigestFacts: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        /// SHA-1 (or SHA-0): collisions are practical; broken for certificates.
        case sha1
        /// MD5, MD4, MD2, MDC-2, RIPEMD-160: broken or under 112 bits.
        case broken
        /// No separate digest (Ed25519, Ed448), with a known strength.
        case intrinsic
        /// A SHA-2 or SHA-3 digest.
        case modern
        /// OpenSSL could not tell.
        case unknown
    }

    var kind: Kind
    var name: String?
    var securityBits: Int
}
