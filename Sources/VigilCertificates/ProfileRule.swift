/// One rule of the strict profile (``StrictProfile``), as a value: its code and the profile that
/// imposes it. `rfc5280` rules apply to every chain; `webpki` rules only where the CA/Browser
/// Forum's Baseline Requirements bind the issuer (a chain that ends in the system store), and are
/// findings elsewhere (``TrustProfile``). A profile is the set of rules whose scope it includes.
struct ProfileRule: Sendable, Hashable {
    /// The profile that imposes a rule.
    enum Scope: Sendable, Hashable {
        /// RFC 5280 itself: every chain.
        case rfc5280
        /// The Baseline Requirements or root programs: the public Web PKI only.
        case webpki
        /// RFC 5280's, but explicitly waived by the Baseline Requirements: private chains only
        /// (a finding on a public one).
        case waivedByWebPKI
    }

    let name: String
    let scope: Scope

    init(_ name: String, _ scope: Scope) {
        self.name = name
        self.scope = scope
    }

    /// The reason code of a chain that breaks this rule (`profile-NAME`).
    var code: TrustReason.Code { TrustReason.Code(rawValue: "profile-" + name) }

    /// True when `profile` enforces this rule (otherwise a broken rule is only a finding).
    func applies(in profile: TrustProfile) -> Bool {
        switch scope {
        case .rfc5280: true
        case .webpki: profile == .webpki
        case .waivedByWebPKI: profile == .rfc5280
        }
    }

    /// An authority key identifier without its keyIdentifier field.
    static let authorityKeyIDWithoutKeyID = ProfileRule("aki-without-keyid", .rfc5280)
    /// anyExtendedKeyUsage in a server certificate.
    static let anyExtendedKeyUsage = ProfileRule("any-eku", .webpki)
    /// A CA certificate (cA=TRUE) as the server's certificate.
    static let caAsLeaf = ProfileRule("ca-as-leaf", .rfc5280)
    /// A CA certificate without a key usage extension (OpenSSL's strict mode, error 92). RFC 5280
    /// 4.2.1.3 makes it a rule for the CA that issues, not for the validator (6.1 never checks
    /// it; 6.3.3 checks cRLSign only if key usage is present); the Baseline Requirements require it.
    static let caWithoutKeyUsage = ProfileRule("ca-without-key-usage", .webpki)
    /// A subject CN that is not an exact copy of a SAN.
    static let commonNameNotInSAN = ProfileRule("cn-not-in-san", .webpki)
    /// Extended key usage marked critical.
    static let criticalExtendedKeyUsage = ProfileRule("critical-eku", .webpki)
    /// A critical SAN extension beside a non-empty subject.
    static let criticalSAN = ProfileRule("critical-san", .webpki)
    /// A CRL without a CRL number.
    static let crlWithoutNumber = ProfileRule("crl-without-number", .rfc5280)
    /// Name constraints with neither permitted nor excluded subtrees.
    static let emptyNameConstraints = ProfileRule("empty-nc", .rfc5280)
    /// A key outside RSA (a multiple of 8 bits) and ECDSA P-256, P-384, P-521.
    static let forbiddenKey = ProfileRule("forbidden-key", .webpki)
    /// A DNS name in the SANs outside the preferred name syntax.
    static let invalidDNSSAN = ProfileRule("invalid-dns-san", .rfc5280)
    /// An email address in the SANs that is not a mailbox (RFC 5280 4.2.1.6).
    static let invalidEmailSAN = ProfileRule("invalid-email-san", .rfc5280)
    /// A malformed DNS name constraint.
    static let invalidNameConstraint = ProfileRule("invalid-nc", .rfc5280)
    /// An extension OpenSSL knows but cannot decode.
    static let malformedExtension = ProfileRule("malformed-extension", .rfc5280)
    /// Name constraints in a server certificate.
    static let nameConstraintsInLeaf = ProfileRule("nc-in-leaf", .rfc5280)
    /// A wildcard SAN that covers a name its issuer excludes.
    static let wildcardAcrossNameConstraint = ProfileRule("nc-wildcard", .rfc5280)
    /// A server certificate without extended key usage.
    static let noExtendedKeyUsage = ProfileRule("no-eku", .webpki)
    /// Name constraints not marked critical: RFC 5280 4.2.1.10 requires critical; the Baseline
    /// Requirements, as an explicit exception to RFC 5280, let a public CA mark them non-critical for legacy clients.
    static let nonCriticalNameConstraints = ProfileRule("noncritical-nc", .waivedByWebPKI)
    /// Policy constraints not marked critical.
    static let nonCriticalPolicyConstraints = ProfileRule("noncritical-pc", .rfc5280)
    /// A wildcard that spans a public suffix.
    static let publicSuffixWildcard = ProfileRule("public-suffix-wildcard", .webpki)
    /// A root with an extended key usage extension.
    static let rootWithExtendedKeyUsage = ProfileRule("root-with-eku", .webpki)
    /// A negative serial number.
    static let serialNegative = ProfileRule("serial-negative", .rfc5280)
    /// A serial number longer than 20 octets.
    static let serialTooLong = ProfileRule("serial-too-long", .rfc5280)
    /// Serial number zero.
    static let serialZero = ProfileRule("serial-zero", .rfc5280)

    static let all: [ProfileRule] = [
        authorityKeyIDWithoutKeyID, anyExtendedKeyUsage, caAsLeaf, caWithoutKeyUsage, commonNameNotInSAN, criticalExtendedKeyUsage, criticalSAN,
        crlWithoutNumber,
        emptyNameConstraints, forbiddenKey, invalidDNSSAN, invalidEmailSAN, invalidNameConstraint, malformedExtension, nameConstraintsInLeaf,
        wildcardAcrossNameConstraint,
        noExtendedKeyUsage, nonCriticalNameConstraints, nonCriticalPolicyConstraints, publicSuffixWildcard, rootWithExtendedKeyUsage, serialNegative,
        serialTooLong, serialZero,
    ]

    /// The rule behind a reason code; nil for a code that is not a profile rule's.
    static func rule(for code: TrustReason.Code) -> ProfileRule? { all.first { $0.code == code } }
}
