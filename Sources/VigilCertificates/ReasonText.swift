internal import COpenSSL
import FoundationEssentials
import Glibc

/// Plain words for OpenSSL's verify errors.
enum ReasonText {
    static func reason(opensslCode code: Int32, depth: Int?, certificate: Certificate?) -> TrustReason {
        let openssl = X509_verify_cert_error_string(Int(code)).map { String(cString: $0) } ?? "unknown error"
        let subject = certificate?.subject
        let who: String
        switch depth {
        case 0?: who = "The server certificate"
        case let d?: who = "The certificate at depth \(d)" + (subject.map { " (\($0))" } ?? "")
        case nil: who = "The chain"
        }
        let (slug, message) = words(code: code, who: who, certificate: certificate, openssl: openssl)
        return TrustReason(code: slug, message: message, opensslCode: Int(code), opensslMessage: openssl, depth: depth, subject: subject)
    }

    private static func words(code: Int32, who: String, certificate: Certificate?, openssl: String) -> (TrustReason.Code, String) {
        let notAfter = certificate?.notAfter.map { Certificate.iso8601($0) } ?? "?"
        let notBefore = certificate?.notBefore.map { Certificate.iso8601($0) } ?? "?"
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED: return (.expired, "\(who) expired on \(notAfter).")
        case X509_V_ERR_CERT_NOT_YET_VALID: return (.notYetValid, "\(who) is not valid before \(notBefore).")
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
            return (.selfSigned, "The server certificate is self-signed and is not a trusted anchor.")
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
            return (.untrustedRoot, "The chain ends in a root certificate that is not trusted" + (certificate.map { ": \($0.subject)." } ?? "."))
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
            return (
                .unknownIssuer,
                "\(who)'s issuer" + (certificate.map { " (\($0.issuer))" } ?? "")
                    + " was not sent and is not a trusted anchor: a missing intermediate or an unknown CA."
            )
        case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            return (.unknownIssuer, "\(who) cannot be verified: its issuer is not available.")
        case X509_V_ERR_HOSTNAME_MISMATCH: return (.hostnameMismatch, "The server certificate is not valid for this host name (checked against its SANs only).")
        case X509_V_ERR_IP_ADDRESS_MISMATCH: return (.ipMismatch, "The server certificate is not valid for this IP address (no matching IP SAN).")
        case X509_V_ERR_EMAIL_MISMATCH: return (.emailMismatch, "The certificate is not valid for this email address.")
        case X509_V_ERR_EE_KEY_TOO_SMALL: return (.weakKey, "\(who) has a key too small for security level 2 (RSA needs 2048 bits, EC 224).")
        case X509_V_ERR_CA_KEY_TOO_SMALL: return (.weakKey, "\(who) is a CA with a key too small for security level 2.")
        case X509_V_ERR_CA_MD_TOO_WEAK: return (.weakSignature, "\(who) is signed with a digest too weak for security level 2 (SHA-1 or MD5).")
        case X509_V_ERR_CERT_SIGNATURE_FAILURE:
            return (.badSignature, "\(who)'s signature does not verify: it was not signed by the certificate that claims to be its issuer.")
        case X509_V_ERR_INVALID_CA: return (.invalidCA, "\(who) is used as a CA but is not allowed to be one.")
        case X509_V_ERR_PATH_LENGTH_EXCEEDED: return (.pathLengthExceeded, "The chain is longer than a CA's path length constraint allows.")
        case X509_V_ERR_INVALID_PURPOSE: return (.wrongPurpose, "\(who) is not allowed for this purpose (key usage or extended key usage).")
        case X509_V_ERR_CERT_REVOKED: return (.revoked, "\(who) has been revoked by its CA.")
        case X509_V_ERR_CERT_CHAIN_TOO_LONG: return (.chainTooLong, "The chain is longer than allowed.")
        case X509_V_ERR_UNABLE_TO_GET_CRL: return (.noCRL, "No CRL covers \(who.lowercased()).")
        case X509_V_ERR_PERMITTED_VIOLATION, X509_V_ERR_EXCLUDED_VIOLATION:
            return (.nameConstraints, "\(who) has a name that its CA's name constraints forbid.")
        case X509_V_ERR_CA_CERT_MISSING_KEY_USAGE:
            return (
                ProfileRule.caWithoutKeyUsage.code,
                "\(who) is a CA certificate without a key usage extension, which the Baseline Requirements require (RFC 5280 asks it of the CA, not of the validator)."
            )
        case X509_V_ERR_NO_EXPLICIT_POLICY:
            return (
                .noExplicitPolicy,
                "No certificate policy is valid for the whole chain, yet an explicit policy is required (a CA's requireExplicitPolicy, or connection.require-explicit-policy; RFC 5280 section 6.1)."
            )
        case X509_V_ERR_INVALID_POLICY_EXTENSION:
            return (.invalidPolicy, "\(who) has a certificate policy extension that cannot be processed (RFC 5280 section 6.1).")
        default:
            return (.openSSL(text: openssl), "\(who): \(openssl).")
        }
    }
}
