import VigilLogging

extension ServerCheck.Report {
    /// Every check a report answers, by its finding's code: a JUnit testcase each (docs/cli.md's table).
    public static let checks = [
        "certificate-untrusted", "certificate-expires-soon", "no-ocsp-stapling", "protocol-ssl3", "protocol-tls10", "protocol-tls11", "no-tls13",
        "protocol-violation", "null-cipher", "anonymous", "export", "rc4", "sweet32", "no-forward-secrecy", "cbc-suites", "weak-dh",
        "insecure-renegotiation", "tls-compression", "client-order", "no-hsts", "hsts-short", "hsts-no-subdomains", "version-leaked",
        "http-not-redirected", "http-redirect-elsewhere", "status-redirected", "headers-missing", "well-known-missing", "maintenance",
        "upgrade-pending", "webdav-not-answering", "data-directory-exposed", "end-of-life", "advisory-high", "advisory-medium", "advisory-low",
        "advisories-out-of-date", "advisories-not-covered", "profile-versions", "profile-tls13", "profile-suites", "profile-groups", "profile-order",
        "profile-dh", "profile-certificate-type", "profile-certificate-key", "profile-certificate-lifespan", "profile-hsts",
    ]

    /// JUnit XML as CI renders it: one testcase per check, failed at or above `failOn` (a
    /// finding below it is written as the testcase's output), the finding's code as the failure's type.
    public func junit(failOn: ServerFinding.Level) -> String {
        func escape(_ text: String) -> String { SafeText.xmlEscaped(text) }
        let failing = findings.filter { $0.level >= failOn }
        // A code this list does not know yet still gets its testcase, after the known ones.
        var all = Self.checks
        for finding in findings where !all.contains(finding.code) { all.append(finding.code) }
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"vigil server check\" tests=\"\(all.count)\" failures=\"\(Set(failing.map(\.code)).count)\">\n"
        xml += "  <testsuite name=\"\(escape(server))\" tests=\"\(all.count)\" failures=\"\(Set(failing.map(\.code)).count)\" errors=\"0\">\n"
        for check in all {
            xml += "    <testcase classname=\"server check\" name=\"\(check)\">"
            let found = findings.filter { $0.code == check }
            if let first = found.first(where: { $0.level >= failOn }) {
                let body = found.map { "[\($0.level.rawValue)] \($0.message)" + ($0.nginx.map { "\nnginx: \($0)" } ?? "") }.joined(separator: "\n")
                xml += "\n      <failure type=\"\(check)\" message=\"\(escape(first.message))\">\(escape(body))</failure>\n    "
            } else if !found.isEmpty {
                xml += "\n      <system-out>\(escape(found.map(\.message).joined(separator: "\n")))</system-out>\n    "
            }
            xml += "</testcase>\n"
        }
        return xml + "  </testsuite>\n</testsuites>\n"
    }
}
