internal import COpenSSL
internal import CVigilPKI
public import FoundationEssentials
import Glibc

extension Certificate {
    /// The certificate requires a stapled OCSP answer (RFC 7633 TLS Feature status_request).
    public var mustStaple: Bool { vigil_must_staple(storage.x509) == 1 }

    /// The OCSP responders the certificate names (AIA), http(s) only.
    public var ocspResponders: [String] { authorityInformationAccess.ocsp.filter(Self.isFetchable) }

    /// The CRL distribution points the certificate names, http(s) only (an LDAP point is not fetched).
    public var crlURLs: [String] { crlDistributionPoints.filter(Self.isFetchable) }

    /// Where its delta CRLs are (freshestCRL), http(s) only.
    public var deltaCRLURLs: [String] { freshestCRLPoints.filter(Self.isFetchable) }

    static func isFetchable(_ url: String) -> Bool {
        let lower = url.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// A DER OCSP request for this certificate issued by `issuer`; nil when OpenSSL cannot make one.
    public func ocspRequest(issuer: Certificate) -> [UInt8]? {
        var der: UnsafeMutablePointer<UInt8>?
        let length = vigil_ocsp_request(storage.x509, issuer.storage.x509, &der)
        guard length > 0, let der else { return nil }
        defer { vigil_OPENSSL_free(der) }
        return Array(UnsafeBufferPointer(start: der, count: Int(length)))
    }

    /// Reads an OCSP response about this certificate (at `depth` in its chain), issued by `issuer`.
    public func readOCSP(
        _ response: [UInt8], issuer: Certificate, depth: Int, source: RevocationCheck.Source, url: String? = nil, at time: Date = Date()
    ) -> RevocationCheck {
        var answer = vigil_revocation_answer()
        let result = response.withUnsafeBufferPointer {
            vigil_ocsp_check($0.baseAddress, $0.count, storage.x509, issuer.storage.x509, Int64(time.timeIntervalSince1970), &answer)
        }
        return Self.check(from: answer, result: result, kind: "OCSP response", source: source, url: url, subject: subject, depth: depth)
    }

    static func check(
        from answer: vigil_revocation_answer, result: Int32, kind: String, source: RevocationCheck.Source, url: String?, subject: String, depth: Int
    ) -> RevocationCheck {
        func date(_ seconds: Int64) -> Date? { seconds < 0 ? nil : Date(timeIntervalSince1970: TimeInterval(seconds)) }
        var answer = answer
        let signer = withUnsafeBytes(of: &answer.signer) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        var check = RevocationCheck(source: source, url: url, subject: subject, depth: depth, problem: "")
        check.problem = nil
        check.signer = signer.isEmpty ? nil : signer
        check.producedAt = date(answer.produced_at)
        check.thisUpdate = date(answer.this_update)
        check.nextUpdate = date(answer.next_update)
        switch Int(result) {
        case VIGIL_REVOCATION_USABLE:
            switch answer.cert_status {
            case V_OCSP_CERTSTATUS_GOOD: check.status = .good
            case V_OCSP_CERTSTATUS_REVOKED:
                check.status = .revoked
                check.revokedAt = date(answer.revoked_at)
                check.reason = answer.reason >= 0 ? RevocationCheck.reasonName(Int(answer.reason)) : nil
            default: check.status = .unknown
            }
        case VIGIL_REVOCATION_MALFORMED: check.problem = "the \(kind) cannot be read"
        case VIGIL_REVOCATION_NOT_SUCCESSFUL:
            let words = [1: "malformedRequest", 2: "internalError", 3: "tryLater", 5: "sigRequired", 6: "unauthorized"]
            check.problem = "the responder answered \(words[Int(answer.response_status)] ?? "status \(answer.response_status)")"
        case VIGIL_REVOCATION_BAD_SIGNATURE:
            check.problem = "the \(kind) is not signed by the certificate's issuer or a responder it authorised"
        case VIGIL_REVOCATION_NOT_ABOUT: check.problem = "the \(kind) is not about this certificate or its issuer"
        case VIGIL_REVOCATION_NOT_CURRENT: check.problem = "the \(kind) is out of date (or not yet valid)"
        default: check.problem = "the \(kind)'s scope is one Vigil does not read (indirect, partial or delta)"
        }
        return check
    }
}
