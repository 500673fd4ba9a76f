extension TrustReason {
    /// A reason's stable identifier, for decisions, scripts and the JSON schema (as its text).
    /// Decisions compare these values, never a message: a misspelt code does not compile.
    public struct Code: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        // OpenSSL's verify errors, in words (the error's number is on the reason: `opensslCode`).
        public static let expired = Code(rawValue: "expired")
        public static let notYetValid = Code(rawValue: "not-yet-valid")
        public static let selfSigned = Code(rawValue: "self-signed")
        public static let untrustedRoot = Code(rawValue: "untrusted-root")
        public static let unknownIssuer = Code(rawValue: "unknown-issuer")
        public static let hostnameMismatch = Code(rawValue: "hostname-mismatch")
        public static let ipMismatch = Code(rawValue: "ip-mismatch")
        public static let emailMismatch = Code(rawValue: "email-mismatch")
        public static let weakKey = Code(rawValue: "weak-key")
        public static let weakSignature = Code(rawValue: "weak-signature")
        public static let badSignature = Code(rawValue: "bad-signature")
        public static let invalidCA = Code(rawValue: "invalid-ca")
        public static let pathLengthExceeded = Code(rawValue: "path-length-exceeded")
        public static let wrongPurpose = Code(rawValue: "wrong-purpose")
        public static let revoked = Code(rawValue: "revoked")
        /// RFC 5280 policy processing: a CA requires an explicit policy and none is valid for the path.
        public static let noExplicitPolicy = Code(rawValue: "no-explicit-policy")
        /// RFC 5280 policy processing: a policy extension that cannot be processed.
        public static let invalidPolicy = Code(rawValue: "invalid-policy")
        public static let chainTooLong = Code(rawValue: "chain-too-long")
        public static let noCRL = Code(rawValue: "no-crl")
        public static let nameConstraints = Code(rawValue: "name-constraints")

        // Vigil's own.
        public static let noCertificate = Code(rawValue: "no-certificate")
        public static let notVerified = Code(rawValue: "not-verified")
        public static let invalidName = Code(rawValue: "invalid-name")
        public static let internalError = Code(rawValue: "internal")
        /// Trusted by the evaluator but not by this connection's policy (the HTTP layer adds it).
        public static let notReviewed = Code(rawValue: "not-reviewed")
        /// The connection is below the minimum TLS version (the HTTP layer adds it).
        public static let tlsVersion = Code(rawValue: "tls-version")
        /// A pinned host whose chain holds none of its pinned keys (the HTTP layer adds it).
        public static let pinMismatch = Code(rawValue: "pin-mismatch")
        /// An approval refused: the certificate names another host.
        public static let anotherName = Code(rawValue: "another-name")
        /// An approval refused: a CA certificate used as the server's.
        public static let caAsLeaf = Code(rawValue: "ca-as-leaf")
        /// A certificate whose revocation status could not be learnt, under the hard-fail
        /// revocation policy (``RevocationPolicy``).
        public static let revocationUnknown = Code(rawValue: "revocation-unknown")
        /// A certificate that requires a stapled OCSP answer (RFC 7633 must-staple) came without a usable one.
        public static let mustStapleMissing = Code(rawValue: "must-staple-missing")
        /// An approval refused: a certificate in the chain was signed by one that is not a CA.
        public static let signedByNonCA = Code(rawValue: "signed-by-non-ca")

        /// An OpenSSL verify error Vigil has no words for: its text as a slug.
        static func openSSL(text: String) -> Code {
            Code(rawValue: String(text.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }))
        }
    }
}
