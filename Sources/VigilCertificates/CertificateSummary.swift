import FoundationEssentials
import Glibc

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
    /// When the certificate is valid, and how many days are left.
    public var validity: Validity
    /// Signature algorithm, OpenSSL's long name (for example `sha256WithRSAEncryption`).
    public var signatureAlgorithm: String
    /// The subject's public key.
    public var publicKey: PublicKeyInfo
    /// The subject alternative names, by kind.
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
    /// The OCSP responders and CA issuer URLs the certificate names (AIA).
    public var authorityInformationAccess: AuthorityInformationAccess
    /// CRL distribution point URIs (full names).
    public var crlDistributionPoints: [String]
    /// Certificate policy OIDs (dotted), or `anyPolicy`.
    public var policies: [String]
    /// Number of embedded signed certificate timestamps (Certificate Transparency).
    public var embeddedSCTCount: Int
    /// Every extension in the certificate, in order, with OpenSSL's own text for it.
    public var extensions: [ExtensionInfo]
    /// SHA-256 and SHA-1 of the DER, and the SPKI pin.
    public var fingerprints: Fingerprints
    /// Subject equals issuer and the key identifiers agree (the signature itself is checked by
    /// trust evaluation, not here).
    public var isSelfSigned: Bool
    /// What deserves attention, most severe first.
    public var findings: [Finding]

    /// The validity period, and the days left at the evaluation time.
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

    /// The subject's public key: algorithm, size, and the RSA exponent or EC curve.
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

    /// The subject alternative names, by kind.
    public struct SubjectAlternativeNames: Codable, Sendable, Hashable {
        /// DNS names.
        public var dns: [String] = []
        /// IP addresses.
        public var ip: [String] = []
        /// Email addresses (rfc822Name).
        public var email: [String] = []
        /// URIs.
        public var uri: [String] = []
        /// Other kinds (directory names, otherName, registered IDs) as OpenSSL prints them.
        public var other: [String] = []
        /// No name of any kind.
        public var isEmpty: Bool { dns.isEmpty && ip.isEmpty && email.isEmpty && uri.isEmpty && other.isEmpty }
    }

    /// The basic constraints extension.
    public struct BasicConstraints: Codable, Sendable, Hashable {
        /// The cA flag: the certificate may act as a CA.
        public var isCA: Bool
        /// nil when no path length constraint is set.
        public var pathLength: Int?
    }

    /// The Authority Information Access extension's URLs.
    public struct AuthorityInformationAccess: Codable, Sendable, Hashable {
        /// OCSP responder locations.
        public var ocsp: [String] = []
        /// Locations of the issuer's certificate (CA Issuers).
        public var caIssuers: [String] = []
    }

    /// One extension of the certificate.
    public struct ExtensionInfo: Codable, Sendable, Hashable {
        /// Dotted OID.
        public var oid: String
        /// OpenSSL's long name, or the dotted OID when unknown.
        public var name: String
        /// The extension is marked critical.
        public var critical: Bool
        /// OpenSSL's own text for the value (X509V3_EXT_print), or hex when it has none.
        public var text: String
        /// True when a field of the summary already shows this extension.
        public var summarized: Bool
    }

    /// Digests that identify the certificate and its key.
    public struct Fingerprints: Codable, Sendable, Hashable {
        /// SHA-256 of the DER, colon-separated upper-case hex.
        public var sha256: String
        /// SHA-1 of the DER, colon-separated upper-case hex.
        public var sha1: String
        /// RFC 7469 pin: base64 of SHA-256 over the SubjectPublicKeyInfo.
        public var spkiSHA256: String
    }
}
