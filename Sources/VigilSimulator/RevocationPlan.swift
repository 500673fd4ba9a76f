/// A scenario's revocation PKI (`revocation` in a fixture): the simulator mints, at start, an
/// intermediate CA under the test root and a leaf for each host under it, whose OCSP responder
/// (AIA) and CRL (distribution point) are the simulator's own revocation listener; then it
/// answers as the plan says. Every field is optional; the defaults are a good leaf, a good
/// intermediate, a responder that answers and current CRLs.
public struct RevocationPlan: Codable, Sendable, Hashable {
    /// `good` or `revoked`: what the CA says about a certificate.
    public enum Status: String, Codable, Sendable, Hashable { case good, revoked }
    /// How the OCSP responder behaves.
    public enum Responder: String, Codable, Sendable, Hashable, CaseIterable {
        /// Answers, signed by the issuing CA.
        case answers
        /// Named in the certificate, but nothing listens there (connection refused).
        case down
        /// Answers after 30 seconds (past every client's patience).
        case slow
        /// Answers 200 with bytes that are no OCSP response.
        case garbage
        /// Answers "good" for everything, signed by a key that is not the CA's (the attacker's).
        case wrongKey = "wrong-key"
        /// The certificate names no OCSP responder.
        case none
    }
    /// How the CRL distribution points behave.
    public enum Lists: String, Codable, Sendable, Hashable, CaseIterable {
        /// Current CRLs, signed by the issuing CA.
        case current
        /// CRLs whose nextUpdate passed a day ago.
        case stale
        /// Named, but nothing listens there.
        case down
        /// The certificates name no CRL.
        case none
    }

    /// What the CA says about the leaf; nil: good.
    public var leaf: Status?
    /// What the CA says about the intermediate; nil: good.
    public var intermediate: Status?
    /// How the OCSP responder behaves; nil: it answers.
    public var ocsp: Responder?
    /// How the CRL distribution points behave; nil: current CRLs.
    public var crl: Lists?
    /// The leaf requires a stapled OCSP answer (RFC 7633); the simulator never staples.
    public var mustStaple: Bool?

    /// The defaults: a good leaf and intermediate, a responder that answers, current CRLs.
    public init() {}

    /// `leaf`, else good.
    public var leafStatus: Status { leaf ?? .good }
    /// `intermediate`, else good.
    public var intermediateStatus: Status { intermediate ?? .good }
    /// `ocsp`, else `answers`.
    public var responder: Responder { ocsp ?? .answers }
    /// `crl`, else `current`.
    public var lists: Lists { crl ?? .current }

    /// A client must not use the chain at all: a certificate in it is revoked, or the leaf
    /// demands a staple it never gets. Any credential sent to it is a violation.
    public var forbidsUse: Bool { leafStatus == .revoked || intermediateStatus == .revoked || mustStaple == true }

    /// The name of the certificate the hosts serve, for the journal and the judge.
    public var certificateCase: String { forbidsUse ? "minted-unusable" : "minted" }
}
