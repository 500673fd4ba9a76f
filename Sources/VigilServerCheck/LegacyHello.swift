/// A ClientHello Vigil writes itself, for what this machine's OpenSSL can no longer speak (SSL 3.0;
/// 3DES, RC4, DES, IDEA, SEED and export suites), and the server's answer read: the ServerHello's
/// version, suite, compression and renegotiation_info, nothing more (no key exchange is made, the
/// connection closes after the first record). As sslscan's and testssl.sh's own hellos do.
enum LegacyHello {
    /// A suite by its code point, OpenSSL's traditional name (what sslscan shows) and IANA's.
    struct Suite: Sendable, Hashable {
        var code: UInt16
        var openSSL: String
        var iana: String
    }

    /// Suites OpenSSL 3 builds without (or keeps only in its legacy provider).
    static let legacySuites: [Suite] = [
        Suite(code: 0x000A, openSSL: "DES-CBC3-SHA", iana: "TLS_RSA_WITH_3DES_EDE_CBC_SHA"),
        Suite(code: 0xC012, openSSL: "ECDHE-RSA-DES-CBC3-SHA", iana: "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA"),
        Suite(code: 0xC008, openSSL: "ECDHE-ECDSA-DES-CBC3-SHA", iana: "TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA"),
        Suite(code: 0x0016, openSSL: "EDH-RSA-DES-CBC3-SHA", iana: "TLS_DHE_RSA_WITH_3DES_EDE_CBC_SHA"),
        Suite(code: 0x0013, openSSL: "EDH-DSS-DES-CBC3-SHA", iana: "TLS_DHE_DSS_WITH_3DES_EDE_CBC_SHA"),
        Suite(code: 0x001B, openSSL: "ADH-DES-CBC3-SHA", iana: "TLS_DH_anon_WITH_3DES_EDE_CBC_SHA"),
        Suite(code: 0xC017, openSSL: "AECDH-DES-CBC3-SHA", iana: "TLS_ECDH_anon_WITH_3DES_EDE_CBC_SHA"),
        Suite(code: 0x0005, openSSL: "RC4-SHA", iana: "TLS_RSA_WITH_RC4_128_SHA"),
        Suite(code: 0x0004, openSSL: "RC4-MD5", iana: "TLS_RSA_WITH_RC4_128_MD5"),
        Suite(code: 0xC011, openSSL: "ECDHE-RSA-RC4-SHA", iana: "TLS_ECDHE_RSA_WITH_RC4_128_SHA"),
        Suite(code: 0xC007, openSSL: "ECDHE-ECDSA-RC4-SHA", iana: "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA"),
        Suite(code: 0x0018, openSSL: "ADH-RC4-MD5", iana: "TLS_DH_anon_WITH_RC4_128_MD5"),
        Suite(code: 0xC016, openSSL: "AECDH-RC4-SHA", iana: "TLS_ECDH_anon_WITH_RC4_128_SHA"),
        Suite(code: 0x0009, openSSL: "DES-CBC-SHA", iana: "TLS_RSA_WITH_DES_CBC_SHA"),
        Suite(code: 0x0015, openSSL: "EDH-RSA-DES-CBC-SHA", iana: "TLS_DHE_RSA_WITH_DES_CBC_SHA"),
        Suite(code: 0x0012, openSSL: "EDH-DSS-DES-CBC-SHA", iana: "TLS_DHE_DSS_WITH_DES_CBC_SHA"),
        Suite(code: 0x001A, openSSL: "ADH-DES-CBC-SHA", iana: "TLS_DH_anon_WITH_DES_CBC_SHA"),
        Suite(code: 0x0007, openSSL: "IDEA-CBC-SHA", iana: "TLS_RSA_WITH_IDEA_CBC_SHA"),
        Suite(code: 0x0096, openSSL: "SEED-SHA", iana: "TLS_RSA_WITH_SEED_CBC_SHA"),
        Suite(code: 0x009A, openSSL: "DHE-RSA-SEED-SHA", iana: "TLS_DHE_RSA_WITH_SEED_CBC_SHA"),
        Suite(code: 0x0001, openSSL: "NULL-MD5", iana: "TLS_RSA_WITH_NULL_MD5"),
        Suite(code: 0x0002, openSSL: "NULL-SHA", iana: "TLS_RSA_WITH_NULL_SHA"),
        Suite(code: 0x0003, openSSL: "EXP-RC4-MD5", iana: "TLS_RSA_EXPORT_WITH_RC4_40_MD5"),
        Suite(code: 0x0006, openSSL: "EXP-RC2-CBC-MD5", iana: "TLS_RSA_EXPORT_WITH_RC2_CBC_40_MD5"),
        Suite(code: 0x0008, openSSL: "EXP-DES-CBC-SHA", iana: "TLS_RSA_EXPORT_WITH_DES40_CBC_SHA"),
        Suite(code: 0x0014, openSSL: "EXP-EDH-RSA-DES-CBC-SHA", iana: "TLS_DHE_RSA_EXPORT_WITH_DES40_CBC_SHA"),
        Suite(code: 0x0011, openSSL: "EXP-EDH-DSS-DES-CBC-SHA", iana: "TLS_DHE_DSS_EXPORT_WITH_DES40_CBC_SHA"),
        Suite(code: 0x0017, openSSL: "EXP-ADH-RC4-MD5", iana: "TLS_DH_anon_EXPORT_WITH_RC4_40_MD5"),
        Suite(code: 0x0019, openSSL: "EXP-ADH-DES-CBC-SHA", iana: "TLS_DH_anon_EXPORT_WITH_DES40_CBC_SHA"),
        Suite(code: 0x0062, openSSL: "EXP1024-DES-CBC-SHA", iana: "TLS_RSA_EXPORT1024_WITH_DES_CBC_SHA"),
        Suite(code: 0x0064, openSSL: "EXP1024-RC4-SHA", iana: "TLS_RSA_EXPORT1024_WITH_RC4_56_SHA"),
    ]

    /// What an SSL 3.0 server may take beside the legacy suites (SSL 3.0 has no AEAD, no ECDHE by RFC).
    static let sslv3Suites: [Suite] =
        [
            Suite(code: 0x002F, openSSL: "AES128-SHA", iana: "TLS_RSA_WITH_AES_128_CBC_SHA"),
            Suite(code: 0x0035, openSSL: "AES256-SHA", iana: "TLS_RSA_WITH_AES_256_CBC_SHA"),
            Suite(code: 0x0033, openSSL: "DHE-RSA-AES128-SHA", iana: "TLS_DHE_RSA_WITH_AES_128_CBC_SHA"),
            Suite(code: 0x0039, openSSL: "DHE-RSA-AES256-SHA", iana: "TLS_DHE_RSA_WITH_AES_256_CBC_SHA"),
            Suite(code: 0xC013, openSSL: "ECDHE-RSA-AES128-SHA", iana: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA"),
            Suite(code: 0xC014, openSSL: "ECDHE-RSA-AES256-SHA", iana: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA"),
            Suite(code: 0xC009, openSSL: "ECDHE-ECDSA-AES128-SHA", iana: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"),
            Suite(code: 0xC00A, openSSL: "ECDHE-ECDSA-AES256-SHA", iana: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"),
            Suite(code: 0x0041, openSSL: "CAMELLIA128-SHA", iana: "TLS_RSA_WITH_CAMELLIA_128_CBC_SHA"),
            Suite(code: 0x0084, openSSL: "CAMELLIA256-SHA", iana: "TLS_RSA_WITH_CAMELLIA_256_CBC_SHA"),
        ] + legacySuites

    /// The server's answer to one hello.
    enum Answer: Sendable, Hashable {
        /// A ServerHello: the version and suite it chose, whether it sent renegotiation_info, and its compression method.
        case accepted(version: UInt16, suite: UInt16, secureRenegotiation: Bool, compression: UInt8)
        /// An alert, or the connection closed: not this version with these suites.
        case refused
        /// Bytes that are no TLS record or no ServerHello.
        case garbage
    }

    /// The groups by their code points (RFC 8446, RFC 7919), under OpenSSL's names.
    static let groupCodes: [String: UInt16] = [
        "x25519": 0x001D, "secp256r1": 0x0017, "secp384r1": 0x0018, "secp521r1": 0x0019, "x448": 0x001E,
        "ffdhe2048": 0x0100, "ffdhe3072": 0x0101, "ffdhe4096": 0x0102, "ffdhe6144": 0x0103, "ffdhe8192": 0x0104,
    ]
    /// TLS 1.3's five suites.
    static let tls13Suites: [UInt16] = [0x1301, 0x1302, 0x1303, 0x1304, 0x1305]
    /// Every ECDHE suite of TLS 1.2, to ask whether a curve is accepted (a server that has no curve
    /// in common chooses none of them, RFC 8422).
    static let ecdheSuites: [UInt16] = [
        0xC02B, 0xC02F, 0xC02C, 0xC030, 0xCCA9, 0xCCA8, 0xC023, 0xC027, 0xC024, 0xC028, 0xC009, 0xC013, 0xC00A, 0xC014, 0xC008, 0xC012, 0xC007,
        0xC011,
    ]

    /// A ClientHello that asks whether `group` is accepted, without a key share to compute: TLS 1.3
    /// with an empty key_share (a server that accepts the group answers HelloRetryRequest naming
    /// it, RFC 8446 4.1.4), or TLS 1.2 with only ECDHE suites and this one curve.
    static func groupHello(tls13: Bool, group: UInt16, serverName: String?) -> [UInt8] {
        clientHello(version: 0x0303, suites: tls13 ? tls13Suites : ecdheSuites, serverName: serverName, groups: [group], tls13: tls13)
    }

    /// A ClientHello offering `suites` in `version` (0x0300 SSL 3.0 to 0x0303 TLS 1.2), with the
    /// extensions a real client sends (server name, groups, point formats, signature algorithms)
    /// and the renegotiation SCSV, so that servers answer as they answer real clients; `tls13`
    /// adds supported_versions (TLS 1.3 only) and an empty key_share.
    static func clientHello(version: UInt16, suites: [UInt16], serverName: String?, groups: [UInt16]? = nil, tls13: Bool = false) -> [UInt8] {
        var body: [UInt8] = bytes(version)
        var generator = SystemRandomNumberGenerator()
        body += (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        body.append(0)  // no session id
        let offered = suites + [0x00FF]  // TLS_EMPTY_RENEGOTIATION_INFO_SCSV
        body += bytes(UInt16(offered.count * 2)) + offered.flatMap(bytes)
        body += [1, 0]  // compression: null only
        if version >= 0x0301 {
            var extensions: [UInt8] = []
            if let serverName, !serverName.isEmpty, serverName.utf8.count < 256, !serverName.contains(":"), serverName.contains(where: \.isLetter) {
                let name = Array(serverName.utf8)
                let entry = [0] + bytes(UInt16(name.count)) + name
                extensions += extensionBytes(0x0000, bytes(UInt16(entry.count)) + entry)
            }
            let groups = groups ?? [0x001D, 0x0017, 0x0018, 0x0019]
            extensions += extensionBytes(0x000A, bytes(UInt16(groups.count * 2)) + groups.flatMap(bytes))
            if tls13 {
                extensions += extensionBytes(0x002B, [2, 0x03, 0x04])  // supported_versions: TLS 1.3
                extensions += extensionBytes(0x0033, [0, 0])  // key_share: no share, the server names its group
            }
            extensions += extensionBytes(0x000B, [1, 0])
            if version >= 0x0303 {
                let algorithms: [UInt16] = [0x0804, 0x0805, 0x0806, 0x0401, 0x0501, 0x0601, 0x0403, 0x0503, 0x0603, 0x0201, 0x0203]
                extensions += extensionBytes(0x000D, bytes(UInt16(algorithms.count * 2)) + algorithms.flatMap(bytes))
            }
            body += bytes(UInt16(extensions.count)) + extensions
        }
        let handshake = [1] + Array(bytes(UInt32(body.count)).dropFirst()) + body
        return [0x16] + bytes(min(version, 0x0301)) + bytes(UInt16(handshake.count)) + handshake
    }

    /// The server's answer read: a ServerHello (reassembled across handshake records), an alert
    /// (or nothing: closed), or garbage (no TLS record, another record first, a message cut short).
    static func answer(_ records: [UInt8]) -> Answer {
        guard !records.isEmpty else { return .refused }
        var handshake: [UInt8] = []
        var offset = 0
        while offset + 5 <= records.count {
            let type = records[offset]
            let length = Int(records[offset + 3]) << 8 | Int(records[offset + 4])
            if type == 0x15, handshake.isEmpty { return .refused }
            guard type == 0x16, offset + 5 + length <= records.count else { return .garbage }
            handshake += records[(offset + 5)..<(offset + 5 + length)]
            offset += 5 + length
            if handshake.count >= 4 {
                let messageLength = Int(handshake[1]) << 16 | Int(handshake[2]) << 8 | Int(handshake[3])
                if handshake.count >= 4 + messageLength { return serverHello(handshake) }
            }
        }
        return .garbage
    }

    /// The first handshake message, whole: a ServerHello's version, suite, compression and renegotiation_info.
    static func serverHello(_ message: [UInt8]) -> Answer {
        let messageLength = Int(message[1]) << 16 | Int(message[2]) << 8 | Int(message[3])
        guard message[0] == 2, messageLength >= 38 else { return .garbage }
        let hello = Array(message[4..<(4 + messageLength)])
        let version = UInt16(hello[0]) << 8 | UInt16(hello[1])
        let at = 35 + Int(hello[34])
        guard hello.count >= at + 3 else { return .garbage }
        let suite = UInt16(hello[at]) << 8 | UInt16(hello[at + 1])
        let compression = hello[at + 2]
        var secureRenegotiation = false
        var index = at + 3
        if hello.count >= index + 2 {
            let end = min(hello.count, index + 2 + (Int(hello[index]) << 8 | Int(hello[index + 1])))
            index += 2
            while index + 4 <= end {
                let type = UInt16(hello[index]) << 8 | UInt16(hello[index + 1])
                let size = Int(hello[index + 2]) << 8 | Int(hello[index + 3])
                if type == 0xFF01 { secureRenegotiation = true }
                index += 4 + size
            }
        }
        return .accepted(version: version, suite: suite, secureRenegotiation: secureRenegotiation, compression: compression)
    }

    static func bytes(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func bytes(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func extensionBytes(_ type: UInt16, _ data: [UInt8]) -> [UInt8] { bytes(type) + bytes(UInt16(data.count)) + data }
}
