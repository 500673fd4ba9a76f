internal import CCurl
public import VigilCertificates

/// A TLS protocol version, ordered; what `connection.minimum-tls-version` names.
public enum TLSProtocolVersion: String, Sendable, Hashable, Comparable, CaseIterable {
    case tls10 = "1.0"
    case tls11 = "1.1"
    case tls12 = "1.2"
    case tls13 = "1.3"

    /// From OpenSSL's name (`TLSv1.2`) or the setting's (`1.2`); nil for SSL 3 and unknown names.
    public init?(name: String) {
        let text = name.hasPrefix("TLSv") ? String(name.dropFirst(4)) : name
        self.init(rawValue: text == "1" ? "1.0" : text)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
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
    /// The connection is part of the verdict: a handshake that negotiated `negotiated` (OpenSSL's
    /// name) below `minimum` makes it untrusted with the reason `tls-version`, which no approval
    /// overrides (``VigilCertificates/ApprovalRule``). A version OpenSSL names that Vigil does not
    /// know (SSL 3) counts as below.
    public func requiring(tls minimum: TLSProtocolVersion, negotiated: String) -> TrustEvaluation {
        if let version = TLSProtocolVersion(name: negotiated), version >= minimum { return self }
        let shown = negotiated.hasPrefix("TLSv") ? "TLS " + negotiated.dropFirst(4) : negotiated
        let reason = TrustReason(
            code: .tlsVersion,
            message: "The connection uses \(shown), below the minimum TLS \(minimum.rawValue) (connection.minimum-tls-version).")
        var evaluation = self
        evaluation.verdict = .untrusted(verdict.reasons + [reason])
        return evaluation
    }
}
