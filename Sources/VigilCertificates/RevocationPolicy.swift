/// How much a verdict depends on revocation (`connection.revocation-policy`).
///
/// Whatever the policy, a usable answer that says "revoked" makes the certificate untrusted, and
/// no approval can change that. The policy decides what happens when no usable answer comes.
public enum RevocationPolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Nothing is fetched and must-staple is not enforced; a stapled answer is still read.
    case off
    /// The default. Staples are read, OCSP responders and CRLs fetched (bounded, cached);
    /// a certificate whose status cannot be learnt is a finding, not a refusal; must-staple is
    /// enforced. A responder outage never locks users out of their files, and an attacker who can
    /// block a responder gains nothing a stapled or fetched "revoked" would have stopped.
    case softFail = "soft-fail"
    /// As soft-fail, but a certificate that names a responder or CRL and gets no usable answer
    /// is untrusted (`revocation-unknown`). A certificate that names none is a finding.
    case hardFail = "hard-fail"
}
