import FoundationEssentials
import VigilHTTP

/// One of Mozilla's Server Side TLS configurations (modern, intermediate, old), as dated data:
/// `server-data/tls-profiles.json` holds the published guideline's values (its version and
/// source beside them), and `--profile` chooses one. ``TLSProfile/deviations(versions:certificate:hstsMaximumAge:)``
/// says where a server departs from it, each a notice: a profile is advice, and what a departure
/// allows is already a finding of its own (TLS 1.0, SWEET32...) with its own level.
public struct TLSProfile: Sendable, Hashable, Codable {
    /// `modern`, `intermediate` or `old`.
    public var name: String = ""
    /// The guideline's version (`5.7`).
    public var guideline: String = ""
    /// The versions the profile has (`TLS 1.2`, `TLS 1.3`).
    public var tlsVersions: [String]
    /// The TLS 1.2-and-older suites it has, by IANA name.
    public var ciphers: [String]
    /// The same suites by OpenSSL's names, in the same order (what `ssl_ciphers` takes).
    public var opensslCiphers: [String]
    /// The TLS 1.3 suites it has.
    public var tls13Ciphers: [String]
    /// The smallest Diffie-Hellman group, in bits; nil: no DHE at all.
    public var dhParamSize: Int?
    /// HSTS's max-age at least, in seconds.
    public var hstsMinimumAge: Int
    /// The certificate key types (`ecdsa`, `rsa`).
    public var certificateTypes: [String]
    /// The smallest RSA key, in bits; nil when RSA has no place in it.
    public var rsaKeySize: Int?
    /// The longest certificate lifetime, in days.
    public var maximumCertificateLifespanDays: Int
    /// Whether the server's order of suites should decide.
    public var serverPreferredOrder: Bool
    /// The key exchange groups, by OpenSSL's names.
    public var groups: [String]
    /// The oldest clients that can connect to a server set up so.
    public var oldestClients: [String]

    /// The file's fields (name and guideline are the file's, not the profile's).
    enum CodingKeys: String, CodingKey {
        case tlsVersions, ciphers, opensslCiphers, tls13Ciphers, dhParamSize, hstsMinimumAge, certificateTypes, rsaKeySize
        case maximumCertificateLifespanDays, serverPreferredOrder, groups, oldestClients
    }

    /// The file's shape: its provenance and the three profiles.
    public struct File: Sendable, Codable {
        /// The file's format (1).
        public var format: Int
        /// The guideline's version.
        public var guideline: String
        /// Where it was published.
        public var source: String
        /// When it was copied into the repository.
        public var copied: String
        /// The profiles by name.
        public var profiles: [String: TLSProfile]
    }

    /// The profile called `name` from the file at `path`; throws ``ServerCheckError`` (`bad-data`)
    /// when the file is missing or damaged or has no such profile.
    public static func load(_ name: String, from path: String) throws -> TLSProfile {
        let file = try ServerDataFile.decode(File.self, from: path)
        guard file.format == 1, var profile = file.profiles[name] else {
            throw ServerCheckError(
                .badData, "\(path) has no profile \"\(name)\" in format 1 (it has: \(file.profiles.keys.sorted().joined(separator: ", "))).")
        }
        profile.name = name
        profile.guideline = file.guideline
        return profile
    }

    /// Where a server departs from this profile: versions and suites it accepts that the profile
    /// has not (and TLS 1.3 missing where the profile has it), a smaller Diffie-Hellman group, a
    /// certificate key or lifetime outside it, a shorter HSTS max-age. Notices, in a fixed order.
    public func deviations(versions: [TLSScan.Version], certificate: CertificateFacts?, hstsMaximumAge: Int?) -> [ServerFinding] {
        let label = "Mozilla's \(name) profile (guideline \(guideline))"
        var findings: [ServerFinding] = []
        func note(_ code: String, _ says: String, nginx: String? = nil, apache: String? = nil) {
            findings.append(ServerFinding("profile-\(code)", .notice, "\(says), outside \(label).", nginx: nginx, apache: apache))
        }
        let accepted = versions.filter(\.accepted)
        let extraVersions = accepted.map(\.version).filter { !tlsVersions.contains($0) }
        // nginx's and Apache's names: TLSv1, TLSv1.1, TLSv1.2, TLSv1.3.
        let protocols = tlsVersions.map { $0 == "TLS 1.0" ? "TLSv1" : "TLSv" + $0.dropFirst(4) }
        if !extraVersions.isEmpty {
            note(
                "versions", "\(extraVersions.joined(separator: ", ")) accepted", nginx: "ssl_protocols \(protocols.joined(separator: " "));",
                apache: "SSLProtocol -all " + protocols.map { "+\($0)" }.joined(separator: " "))
        }
        if tlsVersions.contains("TLS 1.3"), !accepted.isEmpty, !accepted.contains(where: { $0.version == "TLS 1.3" }) {
            note("tls13", "TLS 1.3 not accepted", nginx: "ssl_protocols \(protocols.joined(separator: " "));")
        }
        var extraSuites: [String] = []
        for version in accepted {
            let allowed = version.version == "TLS 1.3" ? tls13Ciphers : ciphers
            for suite in version.suites where !allowed.contains(suite.ianaName) && !extraSuites.contains(suite.ianaName) {
                extraSuites.append(suite.ianaName)
            }
        }
        if !extraSuites.isEmpty {
            note(
                "suites", "Suites accepted: \(extraSuites.joined(separator: ", "))", nginx: "ssl_ciphers \(ciphersOpenSSLHint);",
                apache: "SSLCipherSuite \(ciphersOpenSSLHint)")
        }
        // Mozilla names P-256 prime256v1 and X25519 in capitals; OpenSSL's group names are these.
        let allowedGroups = Set(groups.map { $0.lowercased() == "prime256v1" ? "secp256r1" : $0.lowercased() })
        var extraGroups: [String] = []
        for group in accepted.flatMap({ $0.groups ?? [] }) where !allowedGroups.contains(group) && !extraGroups.contains(group) { extraGroups.append(group) }
        if !extraGroups.isEmpty {
            note(
                "groups", "Groups accepted: \(extraGroups.joined(separator: ", "))", nginx: "ssl_ecdh_curve \(groups.joined(separator: ":"));",
                apache: "SSLOpenSSLConfCmd Curves \(groups.joined(separator: ":"))")
        }
        // The old profile asks the server's order to decide (it keeps weak suites for old clients).
        let clientOrdered = accepted.filter { $0.serverOrder == false }.map(\.version)
        if serverPreferredOrder, !clientOrdered.isEmpty {
            note(
                "order", "In \(clientOrdered.joined(separator: ", ")) the client's order of suites decides", nginx: "ssl_prefer_server_ciphers on;",
                apache: "SSLHonorCipherOrder on")
        }
        let dhSizes = accepted.flatMap(\.suites).filter { $0.ephemeralKey == "DH" && $0.ephemeralBits > 0 }.map(\.ephemeralBits)
        if let smallest = dhSizes.min(), smallest < (dhParamSize ?? Int.max) {
            note("dh", dhParamSize.map { "A \(smallest)-bit Diffie-Hellman group (at least \($0))" } ?? "Diffie-Hellman key exchange (DHE) used")
        }
        if let certificate {
            let type = certificate.keyAlgorithm == "EC" ? "ecdsa" : certificate.keyAlgorithm == "RSA" ? "rsa" : certificate.keyAlgorithm.lowercased()
            if !certificateTypes.contains(type) {
                note("certificate-type", "A \(certificate.keyAlgorithm) certificate key (the profile has \(certificateTypes.joined(separator: ", ")))")
            } else if type == "rsa", let rsaKeySize, certificate.keyBits < rsaKeySize {
                note("certificate-key", "A \(certificate.keyBits)-bit RSA key (at least \(rsaKeySize))")
            }
            if let days = certificate.lifespanDays, days > maximumCertificateLifespanDays {
                note("certificate-lifespan", "A certificate valid for \(days) days (at most \(maximumCertificateLifespanDays))")
            }
        }
        if let hstsMaximumAge, hstsMaximumAge < hstsMinimumAge {
            note(
                "hsts", "HSTS max-age \(hstsMaximumAge) (at least \(hstsMinimumAge))",
                nginx: "add_header Strict-Transport-Security \"max-age=\(hstsMinimumAge)\" always;",
                apache: "Header always set Strict-Transport-Security \"max-age=\(hstsMinimumAge)\"")
        }
        return findings
    }

    /// The profile's TLS 1.2 suites by OpenSSL's names, as a directive takes them.
    var ciphersOpenSSLHint: String {
        opensslCiphers.isEmpty ? "(none: TLS 1.3 only)" : opensslCiphers.joined(separator: ":")
    }

    /// What the profile reads of the leaf certificate.
    public struct CertificateFacts: Sendable, Hashable {
        /// `RSA`, `EC`, `Ed25519`...
        public var keyAlgorithm: String
        /// The key's size in bits.
        public var keyBits: Int
        /// From notBefore to notAfter, in whole days; nil when either is unreadable.
        public var lifespanDays: Int?

        /// Facts read elsewhere.
        public init(keyAlgorithm: String, keyBits: Int, lifespanDays: Int?) {
            self.keyAlgorithm = keyAlgorithm
            self.keyBits = keyBits
            self.lifespanDays = lifespanDays
        }
    }
}
