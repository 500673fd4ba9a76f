extension TrustReason {
    /// A reason's stable identifier, for decisions, scripts and the JSON schema (as its text).
    /// Decisions compare these values, never a message: a misspelt code does not compile.
    public struct Code: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        /// The code's text.
        public var rawValue: String
        /// A code with this text.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's text.
        public var description: String { rawValue }

        // OpenSSL's verify errors, in words (the error's number is on the reason: `opensslCode`).
        /// A certificate has expired.
        public static let expired = Code(rawValue: "expired")
        /// A certificate is not valid yet.
        public static let notYetValid = Code(rawValue: "not-yet-valid")
        /// The server's certificate is self-signed and not a trusted anchor.
        public static let selfSigned = Code(rawValue: "self-signed")
        /// The chain ends in a root that is not trusted.
        public static let untrustedRoot = Code(rawValue: "untrusted-root")
        /// An issuer was neither sent nor a trusted anchor: a missing intermediate or an unknown CA.
        public static let unknownIssuer = Code(rawValue: "unknown-issuer")
        /// The server's certificate is not valid for the host name (SANs only).
        public static let hostnameMismatch = Code(rawValue: "hostname-mismatch")
        /// The server's certificate is not valid for the IP address (no matching IP SAN).
        public static let ipMismatch = Code(rawValue: "ip-mismatch")
        /// The certificate is not valid for the email address.
        public static let emailMismatch = Code(rawValue: "email-mismatch")
        /// A key too small (OpenSSL's security level, or Vigil's approval and client-certificate checks).
        public static let weakKey = Code(rawValue: "weak-key")
        /// A signature digest too weak (SHA-1, MD5).
        public static let weakSignature = Code(rawValue: "weak-signature")
        /// A signature does not verify against the certificate that claims to be its issuer.
        public static let badSignature = Code(rawValue: "bad-signature")
        /// A certificate used as a CA is not allowed to be one.
        public static let invalidCA = Code(rawValue: "invalid-ca")
        /// The chain is longer than a CA's path length constraint allows.
        public static let pathLengthExceeded = Code(rawValue: "path-length-exceeded")
        /// A certificate's key usage or extended key usage does not allow the purpose.
        public static let wrongPurpose = Code(rawValue: "wrong-purpose")
        /// A certificate has been revoked.
        public static let revoked = Code(rawValue: "revoked")
        /// RFC 5280 policy processing: a CA requires an explicit policy and none is valid for the path.
        public static let noExplicitPolicy = Code(rawValue: "no-explicit-policy")
        /// RFC 5280 policy processing: a policy extension that cannot be processed.
        public static let invalidPolicy = Code(rawValue: "invalid-policy")
        /// The chain is longer than allowed.
        public static let chainTooLong = Code(rawValue: "chain-too-long")
        /// No CRL covers a certificate that must be covered.
        public static let noCRL = Code(rawValue: "no-crl")
        /// A name that its CA's name constraints forbid.
        public static let nameConstraints = Code(rawValue: "name-constraints")

        // Vigil's own.
        /// No certificate was presented.
        public static let noCertificate = Code(rawValue: "no-certificate")
        /// OpenSSL did not verify the chain and gave no reason.
        public static let notVerified = Code(rawValue: "not-verified")
        /// The name to check against is not a valid name of its kind.
        public static let invalidName = Code(rawValue: "invalid-name")
        /// OpenSSL could not set up or start verification.
        public static let internalError = Code(rawValue: "internal")
        /// Trusted by the evaluator but not by this connection's policy (the HTTP layer adds it).
        public static let notReviewed = Code(rawValue: "not-reviewed")
        /// Not trusted, and its leaf is not approved for this origin (the user may review it).
        public static let notApproved = Code(rawValue: "not-approved")
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
        /// The chain ends in a root added to this machine's trust store, not a public root, and
        /// `connection.locally-added-roots` is `ask`: approvable after review (the HTTP layer adds it).
        public static let locallyAddedRoot = Code(rawValue: "locally-added-root")
        /// The same, with `connection.locally-added-roots` `refuse`: never approvable (the HTTP layer adds it).
        public static let locallyAddedRootRefused = Code(rawValue: "locally-added-root-refused")

        /// An OpenSSL verify error Vigil has no words for: its text as a slug.
        static func openSSL(text: String) -> Code {
            Code(rawValue: String(text.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }))
        }
    }
}
