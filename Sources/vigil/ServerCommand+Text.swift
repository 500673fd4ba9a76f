import VigilHTTP
import VigilLogging
import VigilServerCheck

extension Vigil.ServerCommand.Check {
    /// The report for a person: the summary first, then the versions and suites, then the findings with what to do.
    static func text(_ report: ServerCheck.Report) -> String {
        func t(_ text: String) -> String { SafeText.escaped(text) }
        var lines: [String] = []
        let worst = report.worst.map {
            "\($0.rawValue.uppercased()): \(report.findings.filter { $0.level == report.worst }.count) finding(s) at this level"
        }
        let rating = report.rating
        lines.append(
            "\(rating.grade)  \(t(report.server)): \(worst ?? "no finding")"
                + (rating.because.isEmpty ? "" : "; the grade is set by \(rating.because.joined(separator: ", "))"))
        lines.append(
            "  certificate: \(report.certificate.trusted ? "trusted" : "NOT TRUSTED"), \(t(report.certificate.subject)), expires \(report.certificate.notAfter ?? "?")"
        )
        if let via = report.via { lines.append("  via: \(t(via))") }
        if let cloud = report.cloud {
            lines.append(
                "  cloud: \(t(cloud.product ?? "a cloud")) \(t(cloud.version ?? "of an unknown version"))\(cloud.edition.flatMap { $0.isEmpty ? nil : " (\(t($0)))" } ?? "")"
            )
        }
        if let why = report.httpNotChecked { lines.append("  http: not checked: \(t(why))") }
        if let hsts = report.hsts {
            let flags = (hsts.includeSubDomains ? ", includeSubDomains" : "") + (hsts.preload ? ", preload" : "")
            lines.append("  hsts: max-age \(hsts.maxAge.map(String.init) ?? "missing")\(flags)")
        }
        if let profile = report.profile { lines.append("  profile: \(t(profile))") }
        if let advisories = report.advisories, report.cloud != nil { lines.append("  advisories: the snapshot of \(advisories)") }
        for version in report.versions {
            guard version.accepted else {
                lines.append("  \(version.version): not accepted")
                continue
            }
            let order = version.serverOrder.map { $0 ? "the server's order" : "the client's order" } ?? "one suite"
            lines.append("  \(version.version): accepted, \(version.suites.count) suite(s), \(order)")
            if let groups = version.groups { lines.append("    groups: " + (groups.isEmpty ? "none" : groups.map(t).joined(separator: ", "))) }
            for suite in version.suites {
                // A Diffie-Hellman group's size matters (LOGJAM); a named curve's is its name.
                let key =
                    suite.ephemeralKey.map { key in
                        guard key == "DH" else { return suite.group == nil ? " \(key)" : "" }
                        // A suite found by Vigil's own hello: the key exchange is never made, its size not read.
                        return suite.ephemeralBits > 0 ? " DH \(suite.ephemeralBits) bits" : " DH (size not read)"
                    }
                    ?? " (no ephemeral key)"
                lines.append("    \(t(suite.ianaName))\(suite.group.map { " \(t($0))" } ?? "")\(key)")
            }
        }
        for finding in report.findings {
            lines.append("[\(finding.level.rawValue)] \(finding.code): \(t(finding.message))")
            if let nginx = finding.nginx { lines.append("    nginx:  \(t(nginx))") }
            if let apache = finding.apache { lines.append("    apache: \(t(apache))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
