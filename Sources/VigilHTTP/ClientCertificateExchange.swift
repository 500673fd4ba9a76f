internal import CCurl
public import VigilCertificates

/// What passed between client and server about a client certificate on one connection.
public struct ClientCertificateExchange: Sendable, Hashable, Codable {
    /// The server sent a CertificateRequest.
    public var requested: Bool
    /// The CAs it named as acceptable issuers (RFC 2253), in its order; empty when it named none.
    public var acceptedIssuers: [String]
    /// The client presented a certificate.
    public var presented: Bool
    /// The TLS alert the server ended with (`certificate_required`, `unknown_ca`...), if any.
    public var alert: String?

    /// An exchange; by default nothing was presented, no issuer named and no alert sent.
    public init(requested: Bool, acceptedIssuers: [String] = [], presented: Bool = false, alert: String? = nil) {
        self.requested = requested
        self.acceptedIssuers = acceptedIssuers
        self.presented = presented
        self.alert = alert
    }

    /// The alerts a server refuses a client certificate (or its absence) with (RFC 8446 6.2).
    static let alertNames: [Int32: String] = [
        40: "handshake_failure", 42: "bad_certificate", 43: "unsupported_certificate", 44: "certificate_revoked", 45: "certificate_expired",
        46: "certificate_unknown", 48: "unknown_ca", 49: "access_denied", 116: "certificate_required",
    ]

    /// What the capture saw; nil when the server asked for nothing and sent no such alert.
    static func captured(_ capture: UnsafeMutablePointer<vigil_tls_capture>) -> ClientCertificateExchange? {
        let alert = alertNames[capture.pointee.alert_received]
        guard capture.pointee.client_cert_requested != 0 || alert != nil else { return nil }
        let issuers = capture.pointee.client_cert_issuers.map { String(cString: $0) } ?? ""
        return ClientCertificateExchange(
            requested: capture.pointee.client_cert_requested != 0,
            acceptedIssuers: issuers.split(separator: "\n").map(String.init), presented: capture.pointee.client_cert_presented != 0, alert: alert)
    }

    /// The issuers in words, for a message.
    var issuersText: String {
        acceptedIssuers.isEmpty ? "the server names no issuer it accepts" : "it accepts certificates issued by " + acceptedIssuers.joined(separator: "; ")
    }

    /// The error a refused handshake gives, when the refusal was about the client certificate.
    /// A failure counts as the client certificate's only when the server said so (a TLS alert,
    /// its HTTP page) or the connection broke at the TLS layer right after it asked (`tlsFailure`);
    /// a timeout or an answer that is merely late is not a refusal.
    func error(at endpoint: Endpoint, identity: ClientIdentity?, curlCode: Int?, tlsFailure: Bool = true) -> HTTPError? {
        guard requested, alert != nil || tlsFailure else { return nil }
        if !presented {
            var error = HTTPError(
                .clientCertificateRequired,
                "\(endpoint) requires a client certificate (mutual TLS)\(alert.map { ", TLS alert \($0)" } ?? ""); \(issuersText). "
                    + (identity == nil
                        ? "Add one to the account with --client-certificate FILE (vigil account add or account edit)."
                        : "The account's certificate was not presented."),
                curlCode: curlCode)
            error.clientCertificate = self
            return error
        }
        let facts =
            identity.map { identity -> String in
                let summary = identity.certificate.summary()
                return
                    " The certificate presented: \(summary.subject), issued by \(summary.issuer), valid \(summary.validity.notBefore) to \(summary.validity.notAfter)."
            } ?? ""
        var error = HTTPError(
            .clientCertificateRefused,
            "\(endpoint) refused the client certificate\(alert.map { " (TLS alert \($0))" } ?? ""); \(issuersText).\(facts)", curlCode: curlCode)
        error.clientCertificate = self
        return error
    }
}

/// A client identity and the one origin it is presented to (the account's server).
public struct ClientIdentityBinding: Sendable {
    /// The client certificate, its chain and its private key.
    public var identity: ClientIdentity
    /// The https host and port the identity belongs to; it is presented nowhere else.
    public var origin: Endpoint

    /// Binds `identity` to `origin`.
    public init(identity: ClientIdentity, origin: Endpoint) {
        self.identity = identity
        self.origin = origin
    }

    /// Whether a connection to `endpoint` may carry the identity: its origin only.
    func covers(_ endpoint: Endpoint) -> Bool { origin.isSameOrigin(as: endpoint) }
}
