import Foundation

/// What a security engineer reads before approving a certificate, taken from the certificate
/// itself (never from a text dump). A `Codable` value; rendering belongs to the caller.
public struct CertificateSummary: Codable, Sendable, Hashable {
    /// Subject distinguished name in RFC 4514 order, as OpenSSL prints it.
    public var subject: String
    /// Issuer distinguished name in RFC 4514 order.
    public var issuer: String
    /// X.509 version (1, 2 or 3).
    public var version: Int
    /// Serial number: the DER content octets in lower-case hex, leading zeros kept.
    public var serialNumber: String
    public var validity: Validity
    /// Signature algorithm, OpenSSL's long name (for example `sha256WithRSAEncryption`).
    public var signatureAlgorithm: String
    public var publicKey: PublicKeyInfo
    public var subjectAlternativeNames: SubjectAlternativeNames
    /// Basic constraints; nil when the extension is absent.
    public var basicConstraints: BasicConstraints?
    /// Key usage names; nil when the extension is absent.
    public var keyUsage: [String]?
    /// Extended key usage names; nil when the extension is absent.
    public var extendedKeyUsage: [String]?
    /// Subject key identifier, hex.
    public var subjectKeyIdentifier: String?
    /// Authority key identifier (key id), hex.
    public var authorityKeyIdentifier: String?
    public var authorityInformationAccess: AuthorityInformationAccess
    /// CRL distribution point URIs (full names).
    public var crlDistributionPoints: [String]
    /// Certificate policy OIDs (dotted), or `anyPolicy`.
    public var policies: [String]
    /// Number of embedded signed certificate timestamps (Certificate Transparency).
    public var embeddedSCTCount: Int
    /// Every extension in the certificate, in order, with OpenSSL's own text for it.
    public var extensions: [ExtensionInfo]
    public var fingerprints: Fingerprints
    /// Subject equals issuer and the key identifiers agree (the signature itself is checked by
    /// trust evaluation, not here).
    public var isSelfSigned: Bool
    /// What deserves attention, most severe first.
    public var findings: [Finding]

    public struct Validity: Codable, Sendable, Hashable {
        /// ISO 8601, UTC.
        public var notBefore: String
        /// ISO 8601, UTC.
        public var notAfter: String
        /// Whole days from the evaluation time to `notAfter` (negative once expired).
        public var daysLeft: Int
        /// Whole days from `notBefore` to `notAfter`.
        public var lifetimeDays: Int
    }

    public struct PublicKeyInfo: Codable, Sendable, Hashable {
        /// `RSA`, `EC`, `Ed25519`, `Ed448`, `DSA` or OpenSSL's name.
        public var algorithm: String
        /// Key size in bits (RSA modulus, EC field), not security bits.
        public var bits: Int
        /// RSA public exponent.
        public var rsaExponent: String?
        /// EC curve name (for example `prime256v1`).
        public var curve: String?
    }

    public struct SubjectAlternativeNames: Codable, Sendable, Hashable {
        public var dns: [String] = []
        public var ip: [String] = []
        public var email: [String] = []
        public var uri: [String] = []
        /// Other kinds (directory names, otherName, registered IDs) as OpenSSL prints them.
        public var other: [String] = []
        public var isEmpty: Bool { dns.isEmpty && ip.isEmpty && email.isEmpty && uri.isEmpty && other.isEmpty }
    }

    public struct BasicConstraints: Codable, Sendable, Hashable {
        public var isCA: Bool
        /// nil when no path length constraint is set.
        public var pathLength: Int?
    }

    public struct AuthorityInformationAccess: Codable, Sendable, Hashable {
        public var ocsp: [String] = []
        public var caIssuers: [String] = []
    }

    public struct ExtensionInfo: Codable, Sendable, Hashable {
        /// Dotted OID.
        public var oid: String
        /// OpenSSL's long name, or the dotted OID when unknown.
        public var name: String
        public var critical: Bool
        /// OpenSSL's own text for the value (X509V3_EXT_print), or hex when it has none.
        public var text: String
        /// True when a field of the summary already shows this extension.
        public var summarized: Bool
    }

    public struct Fingerprints: Codable, Sendable, Hashable {
        /// SHA-256 of the DER, colon-separated upper-case hex.
        public var sha256: String
        /// SHA-1 of the DER, colon-separated upper-case hex.
        public var sha1: String
        /// RFC 7469 pin: base64 of SHA-256 over the SubjectPublicKeyInfo.
        public var spkiSHA256: String
    }
}
