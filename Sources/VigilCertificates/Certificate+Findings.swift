import FoundationEssentials
import Glibc

extension Certificate {
    /// Days before expiry that raise ``Finding/Code-swift.struct/expiresSoon``.
    public static let expiryWarningDays = 30
    /// The CA/Browser Forum's maximum leaf lifetime.
    public static let maximumLeafLifetimeDays = 398

    func findings(
        for summary: CertificateSummary, at time: Date, notBefore: Date, notAfter: Date,
        role: CertificateRole, peerName: PeerName?
    ) -> [Finding] {
        var findings: [Finding] = []
        let v = summary.validity
        if time > notAfter {
            findings.append(.init(.expired, .critical, "Expired on \(v.notAfter) (\(-v.daysLeft) days ago)."))
        } else if time < notBefore {
            findings.append(.init(.notYetValid, .critical, "Not valid before \(v.notBefore)."))
        } else if v.daysLeft < Self.expiryWarningDays {
            findings.append(.init(.expiresSoon, .warning, "Expires in \(v.daysLeft) days, on \(v.notAfter)."))
        }

        if role != .root || !summary.isSelfSigned {
            switch signatureDigestFacts.kind {
            case .sha1:
                findings.append(.init(.sha1Signature, .critical, "Signed with SHA-1 (\(summary.signatureAlgorithm)), which is broken for certificates."))
            case .broken:
                findings.append(.init(.weakSignature, .critical, "Signed with \(summary.signatureAlgorithm), which is broken."))
            case .unknown:
                findings.append(.init(.weakSignature, .critical, "Signed with \(summary.signatureAlgorithm), whose strength OpenSSL cannot tell."))
            case .intrinsic, .modern:
                break
            }
        }

        let key = publicKey
        if key.algorithm.isFiniteField && key.bits < 2048 {
            findings.append(.init(.weakKey, .critical, "\(key.algorithm.name) key of \(key.bits) bits; at least 2048 are needed."))
        } else if key.algorithm == .ec && key.bits < 256 {
            findings.append(.init(.weakKey, .critical, "EC key of \(key.bits) bits; at least 256 are needed."))
        }

        if summary.isSelfSigned && role != .root {
            findings.append(.init(.selfSigned, role == .leaf ? .warning : .info, "Self-signed: nobody but its owner vouches for it."))
        }
        if role == .leaf && summary.basicConstraints?.isCA == true {
            findings.append(.init(.caAsLeaf, .warning, "A CA certificate (basicConstraints cA=TRUE) is used as a server certificate."))
        }
        if role == .leaf && !summary.isSelfSigned && v.lifetimeDays > Self.maximumLeafLifetimeDays {
            findings.append(
                .init(.longLifetime, .info, "Valid for \(v.lifetimeDays) days, more than the \(Self.maximumLeafLifetimeDays) public CAs may issue."))
        }
        if role == .leaf, let peerName, matchesOnlyThroughCommonName(peerName) {
            findings.append(
                .init(
                    .hostnameOnlyInCommonName, .critical, "\(peerName.value) appears only in the subject CN, not in the SANs; Vigil does not accept CN names."))
        }
        return findings.sorted { $0.severity > $1.severity }
    }
}
