public import FoundationEssentials
import Glibc

/// One source's answer about one certificate's revocation: a stapled or fetched OCSP response,
/// a fetched CRL, or a file given offline. An answer that cannot be used says why (`problem`)
/// and has no `status`.
public struct RevocationCheck: Codable, Sendable, Hashable {
    /// Where the answer came from.
    public enum Source: String, Codable, Sendable, Hashable {
        /// Stapled to the TLS handshake by the server (RFC 6066 status_request).
        case staple
        /// Fetched from the OCSP responder the certificate names (AIA).
        case ocsp
        /// Fetched from a CRL distribution point the certificate names.
        case crl
        /// An OCSP response given with `--ocsp-response`.
        case ocspFile = "ocsp-file"
        /// The CRLs given with `--crl-file`.
        case crlFile = "crl-file"
    }

    /// What a usable answer says.
    public enum Status: String, Codable, Sendable, Hashable {
        /// Not revoked, or revoked.
        case good, revoked
        /// The responder does not know the certificate (OCSP "unknown").
        case unknown
    }

    /// Where the answer came from.
    public var source: Source
    /// The responder or distribution point; nil for a staple or a file.
    public var url: String?
    /// The certificate the answer is about, and its depth in the chain (0: the server's).
    public var subject: String
    /// Its depth in the chain (0: the server's).
    public var depth: Int
    /// nil when the answer could not be used (`problem` says why).
    public var status: Status?
    /// When it was revoked, for a revoked status; nil when not given.
    public var revokedAt: Date?
    /// RFC 5280's CRLReason, in words (`keyCompromise`...), when given.
    public var reason: String?
    /// When the OCSP response was produced; nil when not given.
    public var producedAt: Date?
    /// The answer's thisUpdate time; nil when not given.
    public var thisUpdate: Date?
    /// The answer's nextUpdate time; nil when not given.
    public var nextUpdate: Date?
    /// The OCSP responder's or CRL issuer's subject.
    public var signer: String?
    /// Why the answer cannot be used: unreachable, malformed, not signed by the issuer or its
    /// delegated responder, about another certificate, out of date.
    public var problem: String?

    /// An answer that cannot be used, and why.
    public init(source: Source, url: String? = nil, subject: String, depth: Int, problem: String) {
        self.source = source
        self.url = url
        self.subject = subject
        self.depth = depth
        self.problem = problem
    }

    /// The words for RFC 5280's CRLReason codes.
    static func reasonName(_ code: Int) -> String? {
        let names = [
            0: "unspecified", 1: "keyCompromise", 2: "cACompromise", 3: "affiliationChanged", 4: "superseded", 5: "cessationOfOperation",
            6: "certificateHold", 8: "removeFromCRL", 9: "privilegeWithdrawn", 10: "aACompromise",
        ]
        return names[code]
    }
}
