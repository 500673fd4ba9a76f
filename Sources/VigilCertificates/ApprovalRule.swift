/// What no user approval can make acceptable. One rule, used wherever an approval is asked for,
/// stored or honoured: account setup, `vigil certificates approve`, and the HTTP trust policy.
///
/// Never approvable: a certificate for another name; a key below 2048-bit RSA or DSA, or 224-bit
/// EC; a SHA-1, MD5, MD4 or MD2 signature anywhere but a root's own self-signature; a CA
/// certificate used as the server's certificate; a revoked certificate, one whose must-staple
/// demand went unmet, or one whose status the hard-fail revocation policy could not learn; a chain in which a certificate that is not a CA
/// issued another (a forgery: anyone holding a valid leaf could sign for any name); a connection
/// below the minimum TLS version; a
/// pinned host whose chain holds none of its pinned keys. Approvable after review: expired, not yet valid,
/// self-signed, an unknown root, a missing intermediate, a wrong or missing extended key usage.
///
/// It lives here, not in VigilAccounts, because the trust policy in VigilHTTP honours approvals and
/// must apply the same rule, and VigilHTTP sits below VigilAccounts.
public enum ApprovalRule {
    /// Why an approval is refused: a stable code and the reason in words.
    public struct Refusal: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The stable code (a ``TrustReason/Code``).
        public var code: TrustReason.Code
        /// The reason in words.
        public var message: String
        /// The message.
        public var description: String { message }

        /// A refusal with `code` and `message`.
        public init(code: TrustReason.Code, message: String) {
            self.code = code
            self.message = message
        }
    }

    /// The reasons `evaluation` (of `sent`, the chain as the server sent it) can never be approved;
    /// empty when an approval after review is possible.
    public static func refusals(_ evaluation: TrustEvaluation, sent: [Certificate]) -> [Refusal] {
        var refusals: [Refusal] = []
        if evaluation.verdict.isForAnotherName {
            let name = evaluation.peerName?.value ?? "this host"
            refusals.append(Refusal(code: .anotherName, message: "The certificate is not valid for \(name); no approval can make it so."))
        }
        for code in [TrustReason.Code.tlsVersion, .pinMismatch, .revoked, .mustStapleMissing, .revocationUnknown, .locallyAddedRootRefused] {
            if let reason = evaluation.verdict.reasons.first(where: { $0.code == code }) {
                refusals.append(Refusal(code: code, message: reason.message + " It cannot be approved."))
            }
        }
        // The sent chain and the chain verification built (which may add the anchor), each once.
        var seen: Set<String> = []
        var certificates: [(Certificate, CertificateRole)] = []
        for (index, certificate) in sent.enumerated() where seen.insert(certificate.sha256Fingerprint).inserted {
            certificates.append((certificate, CertificateRole(position: index, of: certificate)))
        }
        for (index, certificate) in evaluation.verifiedChain.enumerated() where seen.insert(certificate.sha256Fingerprint).inserted {
            certificates.append(
                (certificate, CertificateRole(position: index, of: certificate, isAnchor: index == evaluation.verifiedChain.count - 1 && index > 0)))
        }
        for (certificate, role) in certificates {
            let summary = certificate.summary(at: evaluation.time, role: role)
            let who = role == .leaf ? "The server's certificate" : "\(summary.subject) (\(role.rawValue))"
            let key = certificate.publicKey
            let isJudged = if case .other = key.algorithm { false } else { key.bits > 0 }
            if !isJudged {
                refusals.append(Refusal(code: .weakKey, message: "\(who) has a key Vigil cannot judge (\(key.algorithm.name)); it cannot be approved."))
            } else if (key.algorithm.isFiniteField && key.bits < 2048) || (key.algorithm == .ec && key.bits < 224) {
                refusals.append(
                    Refusal(code: .weakKey, message: "\(who) has a \(key.bits)-bit \(key.algorithm.name) key, which can be broken; it cannot be approved."))
            }
            // The digest as OpenSSL reads it, parameters included (RSASSA-PSS names its hash only
            // there); a digest it cannot name, or one under 112 bits of security, is weak too.
            let isRootSelfSignature = role == .root && certificate.isVerifiedSelfSigned
            let digest = certificate.signatureDigestFacts
            // Ed25519 has no separate digest but 128 bits; 0 bits means OpenSSL could not tell.
            if !isRootSelfSignature, digest.kind == .sha1 || digest.kind == .broken || digest.securityBits < 112 {
                refusals.append(
                    Refusal(
                        code: .weakSignature,
                        message:
                            "\(who) is signed with \(summary.signatureAlgorithm) (digest \(digest.name ?? "unknown")), which can be forged; it cannot be approved."
                    ))
            }
            if role == .leaf, summary.basicConstraints?.isCA == true {
                refusals.append(
                    Refusal(
                        code: .caAsLeaf,
                        message: "The server's certificate is a CA certificate (cA=TRUE); a server must not use one, and it cannot be approved."))
            }
        }
        // A certificate that is not a CA and really signed another one, sent or built, in any
        // order: a server certificate signed by a leaf. No deployment does this; an attacker does.
        // (Names are compared as OpenSSL compares them, then the signature is checked; a leaf that
        // signed but was not sent cannot be seen offline: the chain is then untrusted, approvable.)
        let all = certificates.map(\.0)
        search: for issuer in all where issuer.basicConstraints?.isCA != true && !issuer.isSelfSigned {
            for child in all where child != issuer && child.isIssued(byNameOf: issuer) && child.isSignatureVerified(byKeyOf: issuer) {
                refusals.append(
                    Refusal(
                        code: .signedByNonCA,
                        message:
                            "\(child.subject) is signed by \(issuer.subject), which is not a CA (cA=FALSE): a forged chain, and it cannot be approved."
                    ))
                break search
            }
        }
        return refusals
    }
}
