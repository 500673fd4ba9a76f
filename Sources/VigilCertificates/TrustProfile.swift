/// Which rules decide a verdict. `webpki`: RFC 5280 plus the CA/Browser Forum Baseline
/// Requirements' rules of the strict profile, for chains that end in a system-store anchor (the
/// public Web PKI). `rfc5280`: RFC 5280 only, for chains that end in an anchor the user or the
/// administrator supplied (a CA file, an anchor given in code): a rule only the Baseline
/// Requirements impose is then a finding, not a rejection, because private CAs are not bound by
/// them and every other client accepts their certificates (docs/trust.md lists each rule).
public enum TrustProfile: String, Sendable, Hashable, Codable {
    /// RFC 5280 plus the Baseline Requirements' rules of the strict profile: for system-store anchors.
    case webpki
    /// RFC 5280 only: for anchors the user or the administrator supplied.
    case rfc5280

    /// What the caller asks for.
    public enum Choice: Sendable, Hashable {
        /// The anchor decides (the default).
        case byAnchor
        /// This profile, whatever the anchor (`--profile`; the x509-limbo harness forces the one a case's namespace names).
        case forced(TrustProfile)
    }

    /// The profile that decided, and why, in words.
    public struct Decision: Sendable, Hashable, Codable {
        /// The profile that decided.
        public var profile: TrustProfile
        /// Why it decided, in words.
        public var why: String
    }

    /// The profile for a chain anchored in `anchor` (nil: not trusted, no anchor).
    static func decide(_ choice: Choice, anchor: TrustBasis.Source?, usesSystemStore: Bool) -> Decision {
        if case .forced(let profile) = choice { return Decision(profile: profile, why: "chosen with --profile") }
        switch anchor {
        case .systemStore?:
            guard PublicRoots.isKnown else {
                return Decision(
                    profile: .webpki,
                    why: "the chain ends in the system trust store (which of its roots are public is not known here: no list at \(PublicRoots.location))")
            }
            return Decision(profile: .webpki, why: "the chain ends in a public root (Mozilla's root program, as ca-certificates ships it)")
        case .locallyAdded?:
            return Decision(profile: .rfc5280, why: "the chain ends in a root added to this machine's trust store, not a public root")
        case .some: return Decision(profile: .rfc5280, why: "the chain ends in an anchor you supplied: a CA file or a given certificate")
        case nil where usesSystemStore: return Decision(profile: .webpki, why: "no anchor was found, and the system trust store was searched")
        case nil: return Decision(profile: .rfc5280, why: "no anchor was found among the anchors you supplied")
        }
    }
}
