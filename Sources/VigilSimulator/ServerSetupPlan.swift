import Foundation

/// How a scenario's https hosts are set up, for `vigil server check` to find (issue 49): the
/// TLS suites they accept, HSTS and the headers the clouds' setup checks ask for, the
/// `.well-known` redirects, a data directory served from the web, the version status.php says.
/// Each absent field keeps the simulator's default: TLS 1.2 and 1.3 with ECDHE and AEAD suites
/// only, no HSTS, no security headers, the `.well-known` redirects, the data directory not served.
public struct ServerSetupPlan: Sendable, Hashable, Codable {
    /// TLS 1.2-and-older suites, in the cipher-list syntax of BoringSSL (swift-nio-ssl's TLS).
    public var ciphers: String?
    /// Strict-Transport-Security's value on every https answer.
    public var hsts: String?
    /// The five headers the clouds' setup checks ask for, on every https answer.
    public var securityHeaders: Bool?
    /// false: `/.well-known/caldav` and `carddav` answer 404 instead of redirecting to `/remote.php/dav/`.
    public var wellKnown: Bool?
    /// `/data/.ocdata` and `/data/htaccesstest.txt` are served (the data directory in the web root).
    public var dataDirectoryServed: Bool?
    /// The version status.php says, in place of the product's usual one.
    public var version: String?

    /// The headers of ``securityHeaders``, as ownCloud's and Nextcloud's .htaccess set them.
    static let securityHeaderFields = [
        ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "SAMEORIGIN"), ("X-Robots-Tag", "noindex, nofollow"),
        ("X-Permitted-Cross-Domain-Policies", "none"), ("Referrer-Policy", "no-referrer"),
    ]

    /// The simulator's suites when a scenario names none (TLS 1.2: ECDHE with AES-GCM or ChaCha20).
    static let defaultCiphers = "ECDHE+AESGCM:ECDHE+CHACHA20"

    /// The headers an https answer gains.
    var headers: [(String, String)] {
        (hsts.map { [("Strict-Transport-Security", $0)] } ?? []) + (securityHeaders == true ? Self.securityHeaderFields : [])
    }
}

/// What `vigil server check` must find on a scenario's host 1 (the tests hold it to this; the
/// list in docs/scenarios.md shows it).
public struct ServerCheckExpectation: Sendable, Hashable, Codable {
    /// The grade, A+ to F.
    public var grade: String
    /// Finding codes that must be among the findings.
    public var findings: [String]
    /// Finding codes that must not be.
    public var absent: [String]?
}
