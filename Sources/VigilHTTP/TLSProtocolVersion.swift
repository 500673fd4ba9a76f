internal import CCurl
import VigilCertificates

/// A TLS protocol version, ordered; what `connection.minimum-tls-version` names.
public enum TLSProtocolVersion: String, Sendable, Hashable, Comparable, CaseIterable {
    /// TLS 1.0.
    case tls10 = "1.0"
    /// TLS 1.1.
    case tls11 = "1.1"
    /// TLS 1.2.
    case tls12 = "1.2"
    /// TLS 1.3.
    case tls13 = "1.3"

    /// From OpenSSL's protocol number (`SSL_version`: 0x0301 to 0x0304); nil for SSL 3, DTLS
    /// and anything else.
    public init?(openSSLCode code: Int) {
        switch code {
        case 0x0301: self = .tls10
        case 0x0302: self = .tls11
        case 0x0303: self = .tls12
        case 0x0304: self = .tls13
        default: return nil
        }
    }

    /// Older versions sort first.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// OpenSSL's protocol number (`SSL_version`).
    var openSSLCode: Int {
        switch self {
        case .tls10: 0x0301
        case .tls11: 0x0302
        case .tls12: 0x0303
        case .tls13: 0x0304
        }
    }

    /// libcurl's CURLOPT_SSLVERSION value for "this version and no other" (a scan's offer).
    var curlExactly: Int {
        switch self {
        case .tls10: return curlMinimum | Int(CURL_SSLVERSION_MAX_TLSv1_0)
        case .tls11: return curlMinimum | Int(CURL_SSLVERSION_MAX_TLSv1_1)
        case .tls12: return curlMinimum | Int(CURL_SSLVERSION_MAX_TLSv1_2)
        case .tls13: return curlMinimum | Int(CURL_SSLVERSION_MAX_TLSv1_3)
        }
    }

    /// libcurl's CURLOPT_SSLVERSION value for "this version or later".
    var curlMinimum: Int {
        switch self {
        case .tls10: return Int(CURL_SSLVERSION_TLSv1_0)
        case .tls11: return Int(CURL_SSLVERSION_TLSv1_1)
        case .tls12: return Int(CURL_SSLVERSION_TLSv1_2)
        case .tls13: return Int(CURL_SSLVERSION_TLSv1_3)
        }
    }
}

extension TrustEvaluation {
    /// The connection is part of the verdict: a handshake that negotiated `negotiated` below
    /// `minimum` makes it untrusted with the reason `tls-version`, which no approval overrides
    /// (``VigilCertificates/ApprovalRule``). A protocol Vigil does not know (nil: SSL 3) counts as below.
    func requiring(tls minimum: TLSProtocolVersion, negotiated: TLSProtocolVersion?) -> TrustEvaluation {
        if let negotiated, negotiated >= minimum { return self }
        let shown = negotiated.map { "TLS \($0.rawValue)" } ?? "a protocol older than TLS 1.0"
        let reason = TrustReason(
            code: .tlsVersion,
            message: "The connection uses \(shown), below the minimum TLS \(minimum.rawValue) (connection.minimum-tls-version).")
        var evaluation = self
        evaluation.verdict = .untrusted(verdict.reasons + [reason])
        return evaluation
    }
}
