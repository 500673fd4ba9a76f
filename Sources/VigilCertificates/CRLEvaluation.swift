internal import COpenSSL
internal import CVigilPKI
public import FoundationEssentials
import Glibc

/// The one CRL evaluation: what a set of CRLs says about every certificate of a verified path
/// but its anchor (RFC 5280 section 6.3), for the CRLs given offline (`--crl-file`) and those
/// fetched from distribution points alike. OpenSSL's whole-path CRL processing does the work
/// (`X509_V_FLAG_CRL_CHECK_ALL`, `EXTENDED_CRL_SUPPORT`, `USE_DELTAS`): the CRL signed by the
/// issuer's key (or by another key of the same CA, found among the certificates given), indirect
/// CRLs (`cRLIssuer`) whose issuer's own path to the same anchor verifies, issuing distribution
/// points (`onlyContainsUserCerts`, `onlyContainsCACerts`, `onlyContainsAttributeCerts`,
/// `onlySomeReasons`, a partition matched against the certificate's distribution points), delta
/// CRLs with their base and `removeFromCRL`, reason codes (`certificateHold` is revoked), and a
/// CRL past its `nextUpdate` (or without one, more than a week old). A certificate is "good" only
/// when a CRL was read for it and raised no error. docs/trust.md has the table of what is covered.
///
/// A function of its inputs: the same path, certificates, CRLs and time give the same checks.
public enum CRLEvaluation {
    /// One check per certificate of `path` (leaf first, ending in its trust anchor) but the
    /// anchor, leaf first. `others`: certificates an indirect CRL's issuer (or a CA's other key)
    /// may be found among, such as those the server sent. `source` and `url` label the checks.
    public static func check(
        path: [Certificate], others: [Certificate] = [], lists: [RevocationList], at time: Date, securityLevel: Int = 2,
        source: RevocationCheck.Source = .crlFile, url: String? = nil
    ) -> [RevocationCheck] {
        guard path.count >= 2, let leaf = path.first, let anchor = path.last else { return [] }
        // The path's own certificates first, so that OpenSSL rebuilds that very path; if the others
        // lead it elsewhere, the path alone (an indirect CRL issuer among the others is then lost).
        let intermediates = Array(path.dropFirst().dropLast())
        let extra = others.filter { !path.contains($0) }
        var run = evaluate(leaf: leaf, anchor: anchor, untrusted: intermediates + extra, lists: lists, time: time, securityLevel: securityLevel)
        if run.built != path && !extra.isEmpty {
            run = evaluate(leaf: leaf, anchor: anchor, untrusted: intermediates, lists: lists, time: time, securityLevel: securityLevel)
        }
        return path.dropLast().enumerated().map { depth, certificate in
            guard run.built == path, depth < run.results.count else {
                return RevocationCheck(
                    source: source, url: url, subject: certificate.subject, depth: depth,
                    problem: "the path could not be rebuilt for the CRL check (OpenSSL built another)")
            }
            return Self.check(run.results[depth], source: source, url: url, subject: certificate.subject, depth: depth, at: time)
        }
    }

    struct Run {
        var results: [vigil_crl_result]
        var built: [Certificate]
    }

    static func evaluate(leaf: Certificate, anchor: Certificate, untrusted: [Certificate], lists: [RevocationList], time: Date, securityLevel: Int) -> Run {
        let count = untrusted.count + 2
        var results = [vigil_crl_result](repeating: vigil_crl_result(), count: count)
        var built = [OpaquePointer?](repeating: nil, count: count)
        let stack = vigil_sk_X509_new()
        defer { vigil_sk_X509_free(stack) }
        for certificate in untrusted { _ = vigil_sk_X509_push(stack, certificate.storage.x509) }
        let crls = vigil_sk_X509_CRL_new()
        defer { vigil_sk_X509_CRL_free(crls) }
        for list in lists { _ = vigil_sk_X509_CRL_push(crls, list.storage.crl) }
        let seconds = Int64(time.timeIntervalSince1970.rounded(.down))
        let made = results.withUnsafeMutableBufferPointer { resultBuffer in
            built.withUnsafeMutableBufferPointer { builtBuffer in
                vigil_crl_evaluate(
                    leaf.storage.x509, anchor.storage.x509, OpaquePointer(stack), crls, seconds, Int32(securityLevel), resultBuffer.baseAddress,
                    builtBuffer.baseAddress, Int32(count))
            }
        }
        var chain: [Certificate] = []
        for index in 0..<max(0, Int(made)) {
            if let x509 = built[index] {
                chain.append(Certificate(retaining: x509))
                X509_free(x509)
            }
        }
        return Run(results: results, built: chain)
    }

    /// A CRL without nextUpdate (which RFC 5280 requires) counts for a week after its thisUpdate,
    /// as an OCSP answer without one does: an old one replayed says nothing.
    static let withoutNextUpdate: TimeInterval = 7 * 86_400

    static func check(_ result: vigil_crl_result, source: RevocationCheck.Source, url: String?, subject: String, depth: Int, at time: Date) -> RevocationCheck {
        func date(_ seconds: Int64) -> Date? { seconds < 0 ? nil : Date(timeIntervalSince1970: TimeInterval(seconds)) }
        var result = result
        let signer = withUnsafeBytes(of: &result.signer) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
        var check = RevocationCheck(source: source, url: url, subject: subject, depth: depth, problem: "")
        check.problem = nil
        check.signer = signer.isEmpty ? nil : signer
        check.thisUpdate = date(result.this_update)
        check.nextUpdate = date(result.next_update)
        switch result.error {
        case X509_V_OK where result.this_update < 0:
            // No error, but no CRL was read for it either (OpenSSL skipped the certificate).
            check.problem = "no CRL was read for it"
        case X509_V_OK where result.next_update < 0 && time.timeIntervalSince1970 - TimeInterval(result.this_update) > withoutNextUpdate:
            check.problem = "the CRL has no nextUpdate and is more than a week old"
        case X509_V_OK:
            check.status = .good
        case X509_V_ERR_CERT_REVOKED:
            check.status = .revoked
            check.revokedAt = date(result.revoked_at)
            check.reason = result.reason >= 0 ? RevocationCheck.reasonName(Int(result.reason)) : nil
        default:
            check.problem = problem(result.error, source: source)
        }
        return check
    }

    /// Plain words for OpenSSL's CRL errors.
    static func problem(_ error: Int32, source: RevocationCheck.Source) -> String {
        switch error {
        case X509_V_ERR_UNABLE_TO_GET_CRL:
            source == .crlFile
                ? "no CRL given covers it (none from its issuer, or none whose scope, partition or reasons include it)"
                : "the CRL does not cover it (another issuer, or a scope, partition or reasons that leave it out)"
        case X509_V_ERR_CRL_HAS_EXPIRED: "the CRL is out of date: its nextUpdate has passed"
        case X509_V_ERR_CRL_NOT_YET_VALID: "the CRL is not valid yet: its thisUpdate is in the future"
        case X509_V_ERR_CRL_SIGNATURE_FAILURE, X509_V_ERR_UNABLE_TO_DECRYPT_CRL_SIGNATURE:
            "the CRL's signature does not verify with its issuer's key"
        case X509_V_ERR_UNABLE_TO_GET_CRL_ISSUER: "the CRL's issuer (an indirect CRL's cRLIssuer, or the CA's other key) was not found"
        case X509_V_ERR_CRL_PATH_VALIDATION_ERROR: "the path of the CRL's issuer does not verify"
        case X509_V_ERR_KEYUSAGE_NO_CRL_SIGN: "the CRL's issuer is not allowed to sign CRLs (its key usage lacks cRLSign)"
        case X509_V_ERR_UNHANDLED_CRITICAL_CRL_EXTENSION: "the CRL has a critical extension that is not understood"
        case X509_V_ERR_DIFFERENT_CRL_SCOPE:
            "the CRL's scope leaves it out (its issuing distribution point: only user, CA or attribute certificates, or another partition)"
        case X509_V_ERR_ERROR_IN_CRL_LAST_UPDATE_FIELD, X509_V_ERR_ERROR_IN_CRL_NEXT_UPDATE_FIELD:
            "the CRL's update times cannot be read"
        case X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY: "the CRL issuer's public key cannot be read"
        default: X509_verify_cert_error_string(Int(error)).map { String(cString: $0) } ?? "OpenSSL error \(error)"
        }
    }
}
