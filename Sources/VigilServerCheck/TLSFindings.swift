import VigilHTTP

/// What a server's TLS configuration allows, named for the attack or the weakness (as sslyze and
/// testssl.sh name them), each with the nginx and Apache directive that fixes it. The rule is by
/// the suites' IANA names and the agreed keys, never by a list of servers.
public enum TLSFindings {
    static let protocols = (
        nginx: "ssl_protocols TLSv1.2 TLSv1.3;", apache: "SSLProtocol -all +TLSv1.2 +TLSv1.3"
    )
    static let suites = (
        nginx:
            "ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305;",
        apache:
            "SSLCipherSuite ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"
    )

    /// The findings of a scan, in a fixed order (by rule, then by version).
    public static func judge(_ versions: [TLSScan.Version]) -> [ServerFinding] {
        var findings: [ServerFinding] = []
        let accepted = versions.filter(\.accepted)
        if accepted.contains(where: { $0.version == "SSL 3.0" }) {
            findings.append(
                ServerFinding(
                    "protocol-ssl3", .error, "SSL 3.0 is accepted: POODLE recovers plaintext from its CBC padding, and RFC 7568 prohibits it.",
                    nginx: protocols.nginx, apache: protocols.apache))
        }
        let violations = versions.flatMap(\.violations)
        if !violations.isEmpty {
            findings.append(
                ServerFinding(
                    "protocol-violation", .warning,
                    "The server breaks the TLS protocol: \(violations.joined(separator: "; ")). What it accepts in those versions is not known."))
        }
        for version in accepted where version.version == "TLS 1.0" || version.version == "TLS 1.1" {
            findings.append(
                ServerFinding(
                    version.version == "TLS 1.0" ? "protocol-tls10" : "protocol-tls11", .warning,
                    "\(version.version) is accepted: deprecated (RFC 8996), without the modern suites; every current client speaks TLS 1.2.",
                    nginx: protocols.nginx, apache: protocols.apache))
        }
        if !accepted.contains(where: { $0.version == "TLS 1.3" }), !accepted.isEmpty {
            findings.append(
                ServerFinding(
                    "no-tls13", .notice, "TLS 1.3 is not accepted: a faster handshake and only forward-secret suites are missed.",
                    nginx: protocols.nginx, apache: protocols.apache))
        }
        let all = accepted.flatMap { version in version.suites.map { (version: version.version, suite: $0) } }
        func names(_ matching: (String) -> Bool) -> [String] {
            var seen: [String] = []
            for entry in all where matching(entry.suite.ianaName) && !seen.contains(entry.suite.ianaName) { seen.append(entry.suite.ianaName) }
            return seen
        }
        let rules: [(code: String, level: ServerFinding.Level, match: (String) -> Bool, says: String)] = [
            ("null-cipher", .error, { $0.contains("_WITH_NULL_") }, "suites without encryption are accepted"),
            ("anonymous", .error, { $0.contains("_anon_") }, "anonymous suites are accepted: no certificate, anyone in the middle can answer"),
            ("export", .error, { $0.contains("EXPORT") }, "export-grade suites are accepted (FREAK, LOGJAM)"),
            ("rc4", .error, { $0.contains("_RC4_") }, "RC4 is accepted (RFC 7465 prohibits it: its keystream biases reveal plaintext)"),
            ("sweet32", .warning, { $0.contains("3DES") || $0.contains("_DES_") || $0.contains("IDEA") }, "64-bit block ciphers are accepted (SWEET32)"),
            (
                "no-forward-secrecy", .warning, { $0.hasPrefix("TLS_RSA_") },
                "suites with RSA key exchange are accepted: a stolen server key decrypts every recorded session"
            ),
            (
                "cbc-suites", .notice, { $0.contains("_CBC_") },
                "CBC suites are accepted (Lucky13-style padding oracles; Mozilla's intermediate profile has none)"
            ),
        ]
        for rule in rules {
            let found = names(rule.match)
            guard !found.isEmpty else { continue }
            findings.append(
                ServerFinding(rule.code, rule.level, "\(rule.says): \(found.joined(separator: ", ")).", nginx: suites.nginx, apache: suites.apache))
        }
        // A Diffie-Hellman group the server chose: under 2048 bits is LOGJAM's territory.
        let weakGroups = Set(
            all.filter { $0.suite.ephemeralKey == "DH" && $0.suite.ephemeralBits > 0 && $0.suite.ephemeralBits < 2048 }.map(\.suite.ephemeralBits))
        if let smallest = weakGroups.min() {
            findings.append(
                ServerFinding(
                    "weak-dh", smallest <= 1024 ? .error : .warning,
                    "A \(smallest)-bit Diffie-Hellman group is used (LOGJAM: 1024 bits is within a nation's reach); use 2048 bits or more, or ECDHE only.",
                    nginx: "ssl_dhparam /etc/nginx/dhparam.pem;  # openssl dhparam -out /etc/nginx/dhparam.pem 2048, or ffdhe2048 from RFC 7919",
                    apache: "SSLOpenSSLConfCmd DHParameters /etc/apache2/dhparam.pem"))
        }
        if all.contains(where: { !$0.suite.secureRenegotiation }) {
            findings.append(
                ServerFinding(
                    "insecure-renegotiation", .error,
                    "Secure renegotiation (RFC 5746) is not supported: a man in the middle can prefix the client's requests with his own (CVE-2009-3555).",
                    nginx: "(upgrade the server's OpenSSL: every supported one has it)", apache: "SSLInsecureRenegotiation off"))
        }
        if all.contains(where: \.suite.compression) {
            findings.append(
                ServerFinding(
                    "tls-compression", .error, "TLS compression is agreed (CRIME: secrets such as cookies are recovered from the compressed sizes).",
                    nginx: "(OpenSSL built without zlib, as Debian's is)", apache: "SSLCompression off"))
        }
        // With only strong suites the client's order is Mozilla's advice; with weak ones beside
        // them, a client that prefers a weak one gets it.
        let weak = findings.contains { ["null-cipher", "anonymous", "export", "rc4", "sweet32", "no-forward-secrecy"].contains($0.code) }
        let clientOrdered = accepted.filter { $0.serverOrder == false }.map(\.version)
        if weak, !clientOrdered.isEmpty {
            findings.append(
                ServerFinding(
                    "client-order", .notice,
                    "In \(clientOrdered.joined(separator: ", ")) the client's order of suites decides, and weak suites are accepted: a client that prefers one gets it.",
                    nginx: "ssl_prefer_server_ciphers on;  # or remove the weak suites", apache: "SSLHonorCipherOrder on"))
        }
        return findings
    }
}
