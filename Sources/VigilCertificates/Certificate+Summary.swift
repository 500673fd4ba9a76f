internal import COpenSSL
public import FoundationEssentials
import Glibc
import VigilText

/// Where a certificate sits in a chain; some findings depend on it.
public enum CertificateRole: String, Codable, Sendable, Hashable {
    /// `leaf`: the first in a chain; `root`: a later one that is self-signed or the anchor; `intermediate`: any other.
    case leaf, intermediate, root
}

extension CertificateRole {
    /// The role of the certificate at `position` in a chain: the first is the leaf; after it, a
    /// self-signed certificate or the trust anchor is a root, anything else an intermediate.
    init(position: Int, of certificate: Certificate, isAnchor: Bool = false) {
        self = position == 0 ? .leaf : (isAnchor || certificate.isSelfSigned ? .root : .intermediate)
    }
}

extension Certificate {
    /// Subject DN in RFC 4514 order (OpenSSL's `XN_FLAG_RFC2253`, UTF-8 kept).
    public var subject: String { Self.distinguishedName(X509_get_subject_name(storage.x509)) }
    /// Issuer DN in RFC 4514 order.
    public var issuer: String { Self.distinguishedName(X509_get_issuer_name(storage.x509)) }
    /// Start of the validity period; nil when OpenSSL cannot read the time.
    public var notBefore: Date? { OpenSSLSupport.date(X509_get0_notBefore(storage.x509)) }
    /// End of the validity period; nil when OpenSSL cannot read the time.
    public var notAfter: Date? { OpenSSLSupport.date(X509_get0_notAfter(storage.x509)) }

    /// Subject equals issuer and the key identifiers agree (OpenSSL's `X509_self_signed`
    /// without the signature check, which costs half of a summary for P-384 roots). The trust
    /// verdict verifies every signature it relies on.
    public var isSelfSigned: Bool { X509_self_signed(storage.x509, 0) == 1 }

    /// True when the basic constraints extension says cA.
    public var isCA: Bool { X509_check_ca(storage.x509) == 1 && (X509_get_extension_flags(storage.x509) & UInt32(EXFLAG_CA)) != 0 }

    /// True when `issuer` has the subject name this certificate names as its issuer.
    public func isIssued(byNameOf issuer: Certificate) -> Bool {
        X509_NAME_cmp(X509_get_issuer_name(storage.x509), X509_get_subject_name(issuer.storage.x509)) == 0
    }

    /// True when `issuer` signed this certificate (names, key ids and signature checked).
    public func isSigned(by issuer: Certificate) -> Bool {
        X509_check_issued(issuer.storage.x509, storage.x509) == X509_V_OK
    }

    /// SHA-256 of the DER (``derEncoded``), colon-separated upper-case hex.
    public var sha256Fingerprint: String { fingerprint(Self.sha256) }

    /// `digest` of the DER, colon-separated upper-case hex; empty for a certificate OpenSSL could
    /// not encode (never the digest of nothing, which every such one would share).
    func fingerprint(_ digest: ([UInt8]) -> [UInt8]) -> String {
        storage.der.isEmpty ? "" : OpenSSLSupport.hex(digest(storage.der), separator: ":", uppercase: true)
    }

    /// The summary as of `time`, for a certificate in `role`, checked against `peerName`.
    public func summary(at time: Date = Date(), role: CertificateRole = .leaf, peerName: PeerName? = nil) -> CertificateSummary {
        let x = storage.x509
        let notBefore = self.notBefore ?? .distantPast
        let notAfter = self.notAfter ?? .distantPast
        var summary = CertificateSummary(
            subject: subject,
            issuer: issuer,
            version: Int(X509_get_version(x)) + 1,
            serialNumber: serialHex,
            validity: .init(
                notBefore: Self.iso8601(notBefore),
                notAfter: Self.iso8601(notAfter),
                daysLeft: Int((notAfter.timeIntervalSince(time) / 86_400).rounded(.down)),
                lifetimeDays: Int((notAfter.timeIntervalSince(notBefore) / 86_400).rounded(.down))
            ),
            signatureAlgorithm: signatureAlgorithm,
            publicKey: publicKeyInfo,
            subjectAlternativeNames: subjectAlternativeNames,
            basicConstraints: basicConstraints,
            keyUsage: keyUsage,
            extendedKeyUsage: extendedKeyUsage,
            subjectKeyIdentifier: X509_get0_subject_key_id(x).map { OpenSSLSupport.hex(OpenSSLSupport.bytes(of: $0), separator: ":") },
            authorityKeyIdentifier: X509_get0_authority_key_id(x).map { OpenSSLSupport.hex(OpenSSLSupport.bytes(of: $0), separator: ":") },
            authorityInformationAccess: authorityInformationAccess,
            crlDistributionPoints: crlDistributionPoints,
            policies: policies,
            embeddedSCTCount: embeddedSCTCount,
            extensions: extensions,
            fingerprints: .init(sha256: sha256Fingerprint, sha1: fingerprint(Self.sha1), spkiSHA256: spkiPin),
            isSelfSigned: isSelfSigned,
            findings: []
        )
        summary.findings = findings(for: summary, at: time, notBefore: notBefore, notAfter: notAfter, role: role, peerName: peerName)
        return summary
    }

    // MARK: - Fields

    static func distinguishedName(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        let flags = vigil_dn_print_flags()
        return OpenSSLSupport.printed { X509_NAME_print_ex($0, name, 0, flags) } ?? ""
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` in UTC (gmtime_r: Foundation's formatters cost more than the rest
    /// of a summary).
    static func iso8601(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "invalid-time" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = Int(parts.tm_year) + 1900
        let yearText = year < 1000 ? String(repeating: "0", count: 4 - String(year).count) + String(year) : String(year)
        return "\(yearText)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    var serialHex: String {
        guard let serial = X509_get0_serialNumber(storage.x509) else { return "" }
        // DER content octets: i2d gives tag, length, content; keep the content as encoded.
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_ASN1_INTEGER(serial, &der)
        defer { vigil_OPENSSL_free(der) }
        guard length > 2, let der else { return "" }
        let bytes = Array(UnsafeBufferPointer(start: der, count: Int(length)))
        var offset = 2
        if bytes[1] & 0x80 != 0 { offset = 2 + Int(bytes[1] & 0x7f) }
        return OpenSSLSupport.hex(bytes[min(offset, bytes.count)...])
    }

    var signatureAlgorithm: String {
        let nid = X509_get_signature_nid(storage.x509)
        if nid != NID_undef, let name = OBJ_nid2ln(nid) { return String(cString: name) }
        var algorithm: UnsafePointer<X509_ALGOR>?
        X509_get0_signature(nil, &algorithm, storage.x509)
        var object: OpaquePointer?
        if let algorithm { X509_ALGOR_get0(&object, nil, nil, algorithm) }
        return OpenSSLSupport.dotted(object)
    }

    var publicKeyInfo: CertificateSummary.PublicKeyInfo {
        let facts = publicKey
        return .init(algorithm: facts.algorithm.name, bits: facts.bits, rsaExponent: facts.rsaExponent, curve: facts.curve)
    }

    /// The public key as OpenSSL parsed it: what decisions read (the summary shows it as text).
    var publicKey: PublicKeyFacts {
        guard let key = X509_get0_pubkey(storage.x509) else { return PublicKeyFacts(algorithm: .other("unknown"), bits: 0) }
        let id = EVP_PKEY_get_base_id(key)
        var facts = PublicKeyFacts(algorithm: .other(""), bits: Int(EVP_PKEY_get_bits(key)))
        switch id {
        case EVP_PKEY_RSA, EVP_PKEY_RSA_PSS:
            facts.algorithm = id == EVP_PKEY_RSA ? .rsa : .rsaPSS
            facts.rsaExponent = rsaExponent
        case EVP_PKEY_EC:
            facts.algorithm = .ec
            facts.curve = namedCurve
        case EVP_PKEY_ED25519:
            facts.algorithm = .ed25519
            facts.bits = 256
        case EVP_PKEY_ED448:
            facts.algorithm = .ed448
            facts.bits = 456
        case EVP_PKEY_DSA:
            facts.algorithm = .dsa
        default:
            facts.algorithm = .other(EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "unknown")
        }
        return facts
    }

    /// The RSA public exponent in decimal, read from the key's DER (RSAPublicKey: a SEQUENCE of
    /// the modulus and the exponent) that OpenSSL already decoded: asking the provider for the
    /// parameter costs more than the rest of the key's facts.
    var rsaExponent: String? {
        guard let bits = X509_get0_pubkey_bitstr(storage.x509) else { return nil }
        let der = OpenSSLSupport.bytes(of: bits)
        return der.withUnsafeBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            var length = 0, tag: Int32 = 0, tagClass: Int32 = 0
            func next(_ remaining: Int) -> Bool { ASN1_get_object(&cursor, &length, &tag, &tagClass, remaining) & 0x80 == 0 }
            func remaining() -> Int { cursor.map { buffer.count - base.distance(to: $0) } ?? 0 }
            guard next(remaining()), tag == V_ASN1_SEQUENCE, next(remaining()), tag == V_ASN1_INTEGER else { return nil }
            cursor = cursor.map { $0 + length }
            guard remaining() > 0, next(remaining()), tag == V_ASN1_INTEGER, length > 0, length <= remaining(), let start = cursor,
                let exponent = BN_bin2bn(start, Int32(length), nil)
            else { return nil }
            defer { BN_free(exponent) }
            guard let decimal = BN_bn2dec(exponent) else { return nil }
            defer { vigil_OPENSSL_free(decimal) }
            return String(cString: decimal)
        }
    }

    /// The named curve of an EC key: the OID in the key's algorithm parameters, by OpenSSL's short
    /// name (`prime256v1`, `secp384r1`); nil for explicit curve parameters.
    var namedCurve: String? {
        var algorithm: UnsafeMutablePointer<X509_ALGOR>?
        guard let key = X509_get_X509_PUBKEY(storage.x509), X509_PUBKEY_get0_param(nil, nil, nil, &algorithm, key) == 1, let algorithm else {
            return nil
        }
        var type: Int32 = 0
        var value: UnsafeRawPointer?
        X509_ALGOR_get0(nil, &type, &value, algorithm)
        guard type == V_ASN1_OBJECT, let value else { return nil }
        let nid = OBJ_obj2nid(OpaquePointer(value))
        guard nid != NID_undef, let name = OBJ_nid2sn(nid) else { return nil }
        return String(cString: name)
    }

    var subjectAlternativeNames: CertificateSummary.SubjectAlternativeNames {
        var names = CertificateSummary.SubjectAlternativeNames()
        guard let stack = X509_get_ext_d2i(storage.x509, NID_subject_alt_name, nil, nil) else { return names }
        defer { vigil_GENERAL_NAMES_free(stack) }
        for index in 0..<vigil_sk_num(stack) {
            guard let item = vigil_sk_value(stack, index) else { continue }
            let name = Self.generalName(item)
            switch name.kind {
            case GEN_DNS: names.dns.append(name.text)
            case GEN_EMAIL: names.email.append(name.text)
            case GEN_URI: names.uri.append(name.text)
            case GEN_IPADD: names.ip.append(name.text)
            default: names.other.append(name.text.isEmpty ? "unprintable name" : name.text)
            }
        }
        return names
    }

    static func ipString(_ bytes: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        switch bytes.count {
        case 4, 16:
            let family = bytes.count == 4 ? AF_INET : AF_INET6
            let ok = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) != nil }
            if ok { return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        default: break
        }
        return "invalid(" + OpenSSLSupport.hex(bytes) + ")"
    }

    var basicConstraints: CertificateSummary.BasicConstraints? {
        guard let value = X509_get_ext_d2i(storage.x509, NID_basic_constraints, nil, nil) else { return nil }
        defer { vigil_BASIC_CONSTRAINTS_free(value) }
        var pathLength = -1
        let isCA = vigil_basic_constraints(value, &pathLength) == 1
        return .init(isCA: isCA, pathLength: pathLength >= 0 ? pathLength : nil)
    }

    var keyUsage: [String]? {
        guard X509_get_ext_by_NID(storage.x509, NID_key_usage, -1) >= 0 else { return nil }
        let bits = X509_get_key_usage(storage.x509)
        let names: [(UInt32, String)] = [
            (UInt32(KU_DIGITAL_SIGNATURE), "digitalSignature"), (UInt32(KU_NON_REPUDIATION), "contentCommitment"),
            (UInt32(KU_KEY_ENCIPHERMENT), "keyEncipherment"), (UInt32(KU_DATA_ENCIPHERMENT), "dataEncipherment"),
            (UInt32(KU_KEY_AGREEMENT), "keyAgreement"), (UInt32(KU_KEY_CERT_SIGN), "keyCertSign"),
            (UInt32(KU_CRL_SIGN), "cRLSign"), (UInt32(KU_ENCIPHER_ONLY), "encipherOnly"), (UInt32(KU_DECIPHER_ONLY), "decipherOnly"),
        ]
        return names.filter { bits & $0.0 != 0 }.map(\.1)
    }

    var extendedKeyUsage: [String]? {
        guard let stack = X509_get_ext_d2i(storage.x509, NID_ext_key_usage, nil, nil) else { return nil }
        defer { vigil_EXTENDED_KEY_USAGE_free(stack) }
        return (0..<vigil_sk_num(stack)).map { index in
            let object = OpaquePointer(vigil_sk_value(stack, index))
            let nid = OBJ_obj2nid(object)
            if nid != NID_undef, let short = OBJ_nid2sn(nid) { return String(cString: short) }
            return OpenSSLSupport.dotted(object)
        }
    }

    var authorityInformationAccess: CertificateSummary.AuthorityInformationAccess {
        var access = CertificateSummary.AuthorityInformationAccess()
        guard let stack = X509_get_ext_d2i(storage.x509, NID_info_access, nil, nil) else { return access }
        defer { vigil_AUTHORITY_INFO_ACCESS_free(stack) }
        for index in 0..<vigil_sk_num(stack) {
            guard let item = vigil_sk_value(stack, index) else { continue }
            let method = OBJ_obj2nid(vigil_access_description_method(item))
            let location = Self.generalNameText(vigil_access_description_location(item))
            if method == NID_ad_OCSP { access.ocsp.append(location) } else if method == NID_ad_ca_issuers { access.caIssuers.append(location) }
        }
        return access
    }

    var crlDistributionPoints: [String] { Self.distributionPointNames(X509_get_ext_d2i(storage.x509, NID_crl_distribution_points, nil, nil)) }

    /// Where the delta CRLs are (freshestCRL, RFC 5280 4.2.1.15).
    var freshestCRLPoints: [String] { Self.distributionPointNames(X509_get_ext_d2i(storage.x509, NID_freshest_crl, nil, nil)) }

    /// The full names of a decoded CRLDistributionPoints (or FreshestCRL) extension, which is freed.
    static func distributionPointNames(_ stack: UnsafeMutableRawPointer?) -> [String] {
        guard let stack else { return [] }
        defer { vigil_CRL_DIST_POINTS_free(stack) }
        var points: [String] = []
        for index in 0..<vigil_sk_num(stack) {
            guard let point = vigil_sk_value(stack, index), let names = vigil_dist_point_full_names(point) else { continue }
            for nameIndex in 0..<vigil_sk_num(names) {
                points.append(Self.generalNameText(vigil_sk_value(names, nameIndex)))
            }
        }
        return points
    }

    var policies: [String] {
        guard let stack = X509_get_ext_d2i(storage.x509, NID_certificate_policies, nil, nil) else { return [] }
        defer { vigil_CERTIFICATEPOLICIES_free(stack) }
        return (0..<vigil_sk_num(stack)).map { index in
            let object = vigil_sk_value(stack, index).flatMap { vigil_policy_info_oid($0) }
            return OBJ_obj2nid(object) == NID_any_policy ? "anyPolicy" : OpenSSLSupport.dotted(object)
        }
    }

    var embeddedSCTCount: Int {
        guard let stack = X509_get_ext_d2i(storage.x509, NID_ct_precert_scts, nil, nil) else { return 0 }
        defer { vigil_SCT_LIST_free(stack) }
        return Int(vigil_sk_num(stack))
    }

    static let summarizedExtensions: Set<Int32> = [
        NID_subject_alt_name, NID_basic_constraints, NID_key_usage, NID_ext_key_usage, NID_subject_key_identifier,
        NID_authority_key_identifier, NID_info_access, NID_crl_distribution_points, NID_certificate_policies, NID_ct_precert_scts,
    ]

    var extensions: [CertificateSummary.ExtensionInfo] {
        let x = storage.x509
        let all = (0..<max(0, X509_get_ext_count(x))).compactMap { X509_get_ext(x, $0) }
        let printed = OpenSSLSupport.printedEach(all) { X509V3_EXT_print($0, $1, 0, 0) }
        return zip(all, printed).map { ext, printed in
            let object = X509_EXTENSION_get_object(ext)
            let nid = OBJ_obj2nid(object)
            var text = printed
            if text == nil {
                OpenSSLSupport.drainErrors()
                text = OpenSSLSupport.hex(OpenSSLSupport.bytes(of: X509_EXTENSION_get_data(ext)), separator: ":")
            }
            return .init(
                oid: OpenSSLSupport.dotted(object),
                name: OpenSSLSupport.name(of: object),
                critical: X509_EXTENSION_get_critical(ext) == 1,
                text: (text ?? "").trimmingWhitespace(),
                summarized: Self.summarizedExtensions.contains(nid)
            )
        }
    }

    /// SHA-256 of `bytes`. The one-shot digests, not `X509_digest` or `EVP_Digest` with
    /// `EVP_sha256()`: OpenSSL 3 fetches a legacy descriptor's algorithm again on every call (an
    /// engine table, then the provider under locks) and `X509_digest` encodes the certificate anew;
    /// together that was a fifth of a certificate summary.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = bytes.withUnsafeBufferPointer { input in digest.withUnsafeMutableBufferPointer { SHA256(input.baseAddress, input.count, $0.baseAddress) } }
        return digest
    }

    /// SHA-1 of `bytes` (shown beside SHA-256, as other tools show it; never a decision).
    static func sha1(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
        _ = bytes.withUnsafeBufferPointer { input in digest.withUnsafeMutableBufferPointer { SHA1(input.baseAddress, input.count, $0.baseAddress) } }
        return digest
    }

    /// RFC 7469 pin: base64(SHA-256(SubjectPublicKeyInfo DER)).
    public var spkiPin: String {
        guard let spki = X509_get_X509_PUBKEY(storage.x509) else { return "" }
        var der: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509_PUBKEY(spki, &der)
        defer { vigil_OPENSSL_free(der) }
        guard length > 0, let der else { return "" }
        return Data(Self.sha256(Array(UnsafeBufferPointer(start: der, count: Int(length))))).base64EncodedString()
    }

    static func generalNameText(_ item: UnsafeMutableRawPointer?) -> String {
        item.map { generalName($0).text } ?? ""
    }

    /// A GENERAL_NAME's kind (`GEN_*`) and text: DNS, email and URI as stored, IPs in their
    /// canonical text form, other kinds as OpenSSL prints them.
    static func generalName(_ item: UnsafeMutableRawPointer) -> (kind: Int32, text: String) {
        var data: UnsafePointer<UInt8>?
        var length: Int32 = 0
        let kind = vigil_general_name_get(item, &data, &length)
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: Int(length))) } ?? []
        switch kind {
        case GEN_DNS, GEN_EMAIL, GEN_URI: return (kind, String(decoding: bytes, as: UTF8.self))
        case GEN_IPADD: return (kind, ipString(bytes))
        default: return (kind, OpenSSLSupport.printed { vigil_general_name_print($0, item) } ?? "")
        }
    }
}
