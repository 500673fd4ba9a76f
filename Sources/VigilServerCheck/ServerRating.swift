/// A grade a person understands, A+ to F, by a rule written down (docs/cli.md), as SSL Labs caps
/// grades and Nextcloud's scan grades versions: the worst cap any finding sets wins.
/// - F: an end-of-life version, and anything else at error level (an untrusted certificate, no
///   encryption, anonymous or export suites, RC4, a Diffie-Hellman group of 1024 bits or less,
///   insecure renegotiation, TLS compression, the data directory served).
/// - E: a version with a high-severity advisory.
/// - D: a version with a medium-severity advisory.
/// - C: a version with a low-severity advisory; 64-bit block ciphers (SWEET32).
/// - B: TLS 1.0 or 1.1, RSA key exchange (no forward secrecy), a Diffie-Hellman group under 2048 bits.
/// - A: any other warning (no HSTS, HSTS under 180 days, maintenance, an upgrade pending, a
///   certificate that expires soon).
/// - A+: nothing above a notice, and HSTS of at least 180 days (so the HTTP checks were made).
public struct ServerRating: Sendable, Hashable, Codable {
    /// `A+`, `A`, `B`, `C`, `D`, `E` or `F`.
    public var grade: String
    /// The findings that set the grade (their codes), in the report's order; empty for A+.
    public var because: [String]

    /// Errors that cap at another grade than F (Nextcloud's scan grades a high advisory E).
    static let errorCaps = ["advisory-high": "E"]
    static let caps: [(grade: String, codes: Set<String>)] = [
        ("D", ["advisory-medium"]),
        ("C", ["advisory-low", "sweet32"]),
        ("B", ["protocol-tls10", "protocol-tls11", "no-forward-secrecy", "weak-dh"]),
    ]
    static let order = ["A+", "A", "B", "C", "D", "E", "F"]

    /// The grade of `findings`; `httpChecked` false (HSTS unknown) is at best A.
    public init(_ findings: [ServerFinding], httpChecked: Bool) {
        var grade = "A+"
        var because: [String] = []
        func cap(_ to: String, _ code: String) {
            if Self.order.firstIndex(of: to)! > Self.order.firstIndex(of: grade)! {
                grade = to
                because = [code]
            } else if to == grade, !because.contains(code) {
                because.append(code)
            }
        }
        for finding in findings {
            if finding.level == .error {
                cap(Self.errorCaps[finding.code] ?? "F", finding.code)
            } else if let rule = Self.caps.first(where: { $0.codes.contains(finding.code) }) {
                cap(rule.grade, finding.code)
            } else if finding.level == .warning {
                cap("A", finding.code)
            }
        }
        if !httpChecked { cap("A", "http-not-checked") }
        self.grade = grade
        self.because = because
    }
}
