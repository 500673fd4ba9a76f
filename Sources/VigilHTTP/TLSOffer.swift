internal import CCurl
import Glibc
import Logging
import VigilLogging

/// What one handshake of a TLS configuration scan offers: exactly one protocol version, and the
/// suites to offer in it (OpenSSL's cipher-list syntax for TLS 1.2 and older, its TLS 1.3 suite
/// list for TLS 1.3). The server's choice among them is its answer (``TLSAgreement``).
public struct TLSOffer: Sendable, Hashable {
    /// The one version offered.
    public var version: TLSProtocolVersion
    /// TLS 1.2 and older: the suites, OpenSSL's names joined by `:` (`ALL:COMPLEMENTOFALL` for every one it has).
    public var ciphers: String
    /// TLS 1.3: the suites, joined by `:`.
    public var tls13Suites: String
    /// The key exchange groups offered, OpenSSL's names joined by `:` (`x25519:secp256r1`); nil: OpenSSL's default list.
    public var groups: String?

    /// An offer of `version` with these suites.
    public init(version: TLSProtocolVersion, ciphers: String = "ALL:COMPLEMENTOFALL", tls13Suites: String = TLSOffer.allTLS13Suites, groups: String? = nil) {
        self.version = version
        self.ciphers = ciphers
        self.tls13Suites = tls13Suites
        self.groups = groups
    }

    /// The TLS 1.2-and-older suites this machine's OpenSSL can offer in `version` (every one it
    /// has, at security level 0), by OpenSSL's names; empty for TLS 1.3 (see ``allTLS13Suites``).
    public static func suites(for version: TLSProtocolVersion) -> [String] {
        guard version != .tls13, let names = vigil_tls_suites_for(Int32(version.openSSLCode)) else { return [] }
        defer { free(UnsafeMutableRawPointer(mutating: names)) }
        var found: [String] = []
        var index = 0
        while let name = names[index] {
            found.append(String(cString: name))
            index += 1
        }
        return found
    }

    /// The TLS 1.3 suites OpenSSL 3 implements (RFC 8446's five).
    public static let allTLS13Suites =
        "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_CCM_SHA256:TLS_AES_128_CCM_8_SHA256"
}

/// What a server agreed to in a scan's handshake.
public struct TLSAgreement: Sendable, Hashable, Codable {
    /// The version agreed.
    public var version: String
    /// The suite by OpenSSL's name (`ECDHE-RSA-AES128-GCM-SHA256`; TLS 1.3: the IANA name).
    public var openSSLName: String
    /// The suite by its IANA name (`TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256`).
    public var ianaName: String
    /// The key exchange group (`x25519`, `secp256r1`, `ffdhe2048`), when OpenSSL names one.
    public var group: String?
    /// The server's ephemeral key: its type (`DH`, `X25519`, `EC`) and size in bits; nil without one
    /// (RSA key exchange: no forward secrecy).
    public var ephemeralKey: String?
    /// The ephemeral key's size in bits (a Diffie-Hellman group's size); 0 without one.
    public var ephemeralBits: Int
    /// The server supports secure renegotiation (RFC 5746); always true for TLS 1.3, which has none.
    public var secureRenegotiation: Bool
    /// TLS compression was agreed (CRIME).
    public var compression: Bool

    /// An agreement read elsewhere (a ClientHello Vigil wrote itself, the ServerHello parsed).
    public init(
        version: String, openSSLName: String, ianaName: String, group: String? = nil, ephemeralKey: String? = nil, ephemeralBits: Int = 0,
        secureRenegotiation: Bool, compression: Bool
    ) {
        self.version = version
        self.openSSLName = openSSLName
        self.ianaName = ianaName
        self.group = group
        self.ephemeralKey = ephemeralKey
        self.ephemeralBits = ephemeralBits
        self.secureRenegotiation = secureRenegotiation
        self.compression = compression
    }

    init(_ session: vigil_tls_session) {
        let openSSL = session.cipher.map { String(cString: $0) } ?? "unknown"
        version = TLSProtocolVersion(openSSLCode: Int(session.version_code)).map { "TLS \($0.rawValue)" } ?? "unknown"
        openSSLName = openSSL
        ianaName = session.standard.map { String(cString: $0) } ?? openSSL
        group = session.group.map { String(cString: $0) }
        ephemeralKey = session.ephemeral_type.map { String(cString: $0) }
        ephemeralBits = Int(session.ephemeral_bits)
        secureRenegotiation = session.secure_renegotiation != 0
        compression = session.compression != 0
    }
}

extension TLSProbe {
    /// One handshake offering exactly `offer` (the certificate is collected, never judged: a
    /// scan sends no request); nil when the server refused it (it answered with an alert or
    /// closed the handshake). Throws when nothing answered (``HTTPError/reachedNothing``), on a
    /// proxy's refusal, or when the answer is not TLS.
    public func agreement(with endpoint: Endpoint, offering offer: TLSOffer) async throws -> TLSAgreement? {
        let (timeout, resolve, proxy) = (self.timeout, self.resolve, self.proxy)
        do {
            let handshake = try await TransferCancellation.onThread(named: "vigil-tls-scan") { cancellation in
                try Self.blockingHandshake(endpoint, timeout: timeout, resolve: resolve, proxy: proxy, cancellation: cancellation, scan: offer)
            }
            return handshake.agreement
        } catch let error as HTTPError where error.code == .handshakeFailed {
            logger.privacy.debug(
                "TLS \(public: offer.version.rawValue) offer refused by \(endpoint.description): \(error.reason)", metadata: ["tags": "tls,scan"])
            return nil
        }
    }
}
