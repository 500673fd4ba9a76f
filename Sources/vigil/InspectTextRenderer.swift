import FoundationEssentials
import Glibc
import VigilCertificates
import VigilHTTP
import VigilLogging
import VigilText

/// Renders an ``InspectReport`` for a person: verdict first, then the chain, then each certificate.
/// Every text that comes from a certificate, a server or a file name goes through ``t(_:)``: its
/// control characters and bidirectional overrides are shown escaped, so a certificate under
/// review cannot redraw the screen (only the renderer's own colours reach the terminal).
struct InspectTextRenderer {
    let terminal: Terminal

    /// External text, made safe for the terminal.
    func t(_ text: String) -> String { SafeText.escaped(text) }

    /// With `approved` (a stored approval or account that is approved, and active), an untrusted
    /// chain is titled APPROVED: what Vigil's connections do with it; the reasons the chain alone
    /// is not trusted follow.
    /// `full` false: the verdict and the chains, then the leaf's fingerprint and where the whole
    /// report is (`vigil inspect URL`), not every certificate's fields: an account's review of a
    /// trusted server. `via`: the way the connection went, when the report has no connection.
    func render(_ report: InspectReport, approved: Bool = false, full: Bool = true, via: String? = nil) -> String {
        var lines: [String] = []
        let what = t(report.target.url ?? report.target.files?.joined(separator: " ") ?? "")
        let name = report.target.peerName.map { "\($0.kind.rawValue) \(t($0.value))" } ?? "no name checked"
        if let interception = report.verdict.findings.first(where: { $0.code == .interception }) {
            // Named first, before anything that reads as well: someone reads this connection.
            let by = report.verdict.basis.map { "by \(t($0.anchorSubject)) " } ?? ""
            lines.append(terminal.red("INTERCEPTED") + "  \(what)")
            lines.append(
                "  \(by)(a root added to this machine's trust store), not the server's own certificate: \(t(interception.message))")
            lines.append("  for \(name), at \(report.evaluatedAt)")
        } else if report.verdict.trusted, let basis = report.verdict.basis {
            lines.append(terminal.green("TRUSTED") + "  \(what)")
            let source =
                switch basis.source {
                case .caFile: "CA file \(t(basis.path ?? ""))"
                case .locallyAdded: "system-store, locally added: not a public root"
                default: basis.source.description
                }
            lines.append("  for \(name), at \(report.evaluatedAt)")
            lines.append("  anchor: \(t(basis.anchorSubject)) (\(source))")
        } else if approved {
            lines.append(terminal.yellow("APPROVED") + "  \(what)")
            lines.append("  for \(name), at \(report.evaluatedAt); approved by a user: the chain alone is not trusted because")
            lines += reasons(report.verdict.reasons)
        } else {
            lines.append(terminal.red("UNTRUSTED") + "  \(what)")
            lines.append("  for \(name), at \(report.evaluatedAt)")
            lines += reasons(report.verdict.reasons)
        }
        lines.append("  profile: \(report.verdict.profile.profile.rawValue) (\(report.verdict.profile.why))")
        if report.verdict.trusted {
            let names = report.verdict.validPolicies.map { $0 == "2.5.29.32.0" ? "any policy (2.5.29.32.0)" : $0 }
            lines.append(
                "  certificate policies valid for the path: \(names.isEmpty ? "none (no policy is asserted by every certificate)" : t(names.joined(separator: ", ")))"
            )
        }
        for finding in report.verdict.findings where finding.code != .interception {
            let tag = finding.severity == .critical ? terminal.red("[\(finding.code)]") : terminal.yellow("[\(finding.code)]")
            lines.append("  \(tag) \(t(finding.message))")
        }
        for rule in report.verdict.rulesNotApplied {
            lines.append("  " + terminal.yellow("[web pki rule, not applied]") + " \(t(rule.message))")
        }
        if let revocation = report.verdict.revocation { lines += self.revocation(revocation, findings: report.verdict.revocationFindings) }
        if report.connection == nil, let via { lines.append("  via: \(t(via))") }
        if let connection = report.connection {
            lines.append("  connection: \(t(connection.protocolVersion)), \(t(connection.cipher)), \(t(connection.address))")
            if let via = connection.via { lines.append("  via: \(t(via.description))") }
            if connection.clientCertificate != "no" {
                let issuers = connection.acceptedIssuers.map { $0.isEmpty ? "names no issuer" : "accepts " + $0.map(t).joined(separator: "; ") } ?? ""
                lines.append("  client certificate: \(connection.clientCertificate) (the server \(issuers))")
            }
            if let presented = connection.clientCertificatePresented { lines.append("  client certificate presented: \(t(presented))") }
            if let finding = connection.clientCertificateFinding { lines.append("  " + terminal.yellow("[finding]") + " \(t(finding))") }
        }
        for approval in report.approvals ?? [] {
            let id = approval.id.map(String.init) ?? "?"
            if approval.honoured {
                lines.append(
                    "  approved: this certificate is approved for this host and port (approval \(id), \(t(approval.approvedAt))); accounts accept it, the verdict above is the chain's own"
                )
            } else if approval.matches {
                lines.append(
                    "  " + terminal.red("[approval that cannot hold]")
                        + " approval \(id) (\(t(approval.approvedAt))) is for this certificate, but no approval can make it safe now (below): accounts refuse it"
                )
            } else {
                lines.append(
                    "  " + terminal.yellow("[approval for another certificate]")
                        + " approval \(id) (\(t(approval.approvedAt))) is for SHA-256 \(t(approval.sha256)), not the certificate sent now: ask the server's administrator why it changed before approving anything"
                )
            }
        }
        for part in report.storeUnreadable ?? [] {
            lines.append(
                "  " + terminal.red("[store DAMAGED]")
                    + " \(t(part)) could not be read: the approvals shown and the check for interception may be incomplete (vigil certificates audit --check)")
        }
        if let steps = report.nextSteps, !steps.isEmpty {
            lines.append("")
            lines.append("What you can do:")
            lines += steps.map { "  - \(t($0))" }
        }
        lines.append("")
        lines += chain(report.chain)
        if !full {
            if let leaf = report.certificates.first { lines.append("  leaf SHA-256: \(t(leaf.fingerprints.sha256))") }
            if let url = report.target.url { lines.append("  every certificate in full: \(SuggestedCommand.line(["vigil", "inspect", url]))") }
            return lines.joined(separator: "\n") + "\n"
        }
        for (index, summary) in report.certificates.enumerated() {
            lines.append("")
            let role = report.chain.sent.indices.contains(index) ? report.chain.sent[index].role.rawValue : ""
            lines.append(terminal.bold("Certificate \(index) (\(role))"))
            lines += certificate(summary)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Why a chain is not trusted, a line each, with OpenSSL's own code and words.
    func reasons(_ reasons: [TrustReason]) -> [String] {
        reasons.map { reason in
            var line = "  - \(t(reason.message))"
            if let code = reason.opensslCode { line += terminal.dim(" [OpenSSL \(code): \(t(reason.opensslMessage ?? ""))]") }
            return line
        }
    }

    /// The revocation answers, one line each, and what could not be learnt.
    func revocation(_ report: RevocationReport, findings: [String]) -> [String] {
        let offline = !report.checks.isEmpty && report.checks.allSatisfy { $0.source == .crlFile || $0.source == .ocspFile }
        var lines = [offline ? "  revocation (from the files given):" : "  revocation (connection.revocation-policy \(report.policy.rawValue)):"]
        if let stapled = report.stapled {
            lines.append(
                "    stapled OCSP answer: \(stapled ? "yes" : "none (asked on the handshake)")"
                    + (report.mustStaple ? "; the certificate requires one (must-staple)" : ""))
        } else if report.mustStaple {
            lines.append("    the certificate requires a stapled OCSP answer (must-staple)")
        }
        func day(_ date: Date?) -> String { date.map { $0.formatted(.iso8601) } ?? "-" }
        // A certificate whose status could not be learnt has its sources' problems said once,
        // in the finding (soft-fail) or the reason (hard-fail): not again line by line.
        let saidElsewhere = Set(report.unresolved.filter(\.namesASource).map(\.depth))
        var shownProblems: Set<String> = []
        for check in report.checks {
            if check.status == nil {
                guard !saidElsewhere.contains(check.depth) || report.policy == .off else { continue }
                // The same problem of several sources of one certificate: one line naming them all.
                let key = "\(check.depth) \(check.problem ?? "")"
                guard shownProblems.insert(key).inserted else { continue }
                let who = check.depth == 0 ? "server certificate" : t(check.subject)
                let sources = report.checks.filter { $0.status == nil && $0.depth == check.depth && $0.problem == check.problem }.map {
                    $0.source.rawValue + ($0.url.map { " \(t($0))" } ?? "")
                }
                lines.append("    \(who): " + terminal.yellow("no usable answer") + " (\(sources.joined(separator: ", ")): \(t(check.problem ?? "")))")
                continue
            }
            let who = check.depth == 0 ? "server certificate" : t(check.subject)
            let from = check.source.rawValue + (check.url.map { " \(t($0))" } ?? "")
            if let status = check.status {
                var line =
                    "    \(who): \(status == .revoked ? terminal.red("REVOKED") : status == .good ? terminal.green("good") : terminal.yellow("unknown to the responder")) (\(from)"
                if status == .revoked { line += "; revoked \(day(check.revokedAt))" + (check.reason.map { " (\(t($0)))" } ?? "") }
                if let produced = check.producedAt { line += "; produced \(day(produced))" }
                line += "; this update \(day(check.thisUpdate)), next update \(day(check.nextUpdate))"
                if let signer = check.signer { line += "; signed by \(t(signer))" }
                lines.append(line + ")")
            }
        }
        if report.notFetched && report.policy != .off {
            lines.append("    OCSP responders and CRLs not asked: no CA vouches for the chain (Vigil goes nowhere an untrusted server points)")
            for address in report.addressesNotAsked { lines.append("      named, not asked: \(t(address))") }
        }
        for item in report.unresolved where !item.namesASource {
            lines.append("    \(item.depth == 0 ? "server certificate" : t(item.subject)): names no OCSP responder or CRL")
        }
        for finding in findings { lines.append("  " + terminal.yellow("[finding]") + " \(t(finding))") }
        return lines
    }

    func chain(_ chain: ChainSummary) -> [String] {
        var lines = ["Chain as sent (\(chain.sent.count)):"]
        for (index, entry) in chain.sent.enumerated() {
            lines.append("  \(index) \(entry.role.rawValue.padded(to: 12)) \(t(entry.subject))")
        }
        lines.append("Chain as verified (\(chain.verified.count)):")
        for (index, entry) in chain.verified.enumerated() {
            let role = entry.isAnchor ? "root/anchor" : entry.role.rawValue
            lines.append("  \(index) \(role.padded(to: 12)) \(t(entry.subject))")
        }
        lines.append("  root sent: \(chain.rootSent ? "yes" : "no"); sent in order: \(chain.sentInOrder ? "yes" : "no")")
        if !chain.missingIssuers.isEmpty {
            lines.append("  " + terminal.yellow("missing issuer: ") + t(chain.missingIssuers.joined(separator: "; ")))
        }
        if chain.builtFromAlternative {
            lines.append(
                "  " + terminal.yellow("path built: ") + "the chain as sent did not verify; path \(chain.pathsTried) of those its certificates allow did")
        } else if chain.pathsTried > 1 {
            lines.append("  paths tried: \(chain.pathsTried) (the chain as sent, and every other path its certificates allow); none verified")
        }
        if !chain.unusedSent.isEmpty {
            lines.append("  sent but unused: certificates \(chain.unusedSent.map(String.init).joined(separator: ", "))")
        }
        return lines
    }

    func certificate(_ s: CertificateSummary) -> [String] {
        func critical(_ oid: String) -> String {
            s.extensions.first { $0.oid == oid }?.critical == true ? " (critical)" : ""
        }
        func row(_ label: String, _ value: String) -> String {
            "  " + (label + ":").padded(to: 20) + t(value)
        }
        var lines = [
            row("Subject", s.subject),
            row("Issuer", s.issuer),
            row("Version", "\(s.version)"),
            row("Serial", s.serialNumber),
            row("Valid", "\(s.validity.notBefore) to \(s.validity.notAfter) (\(s.validity.daysLeft) days left)"),
            row("Signature", s.signatureAlgorithm),
        ]
        var key = "\(s.publicKey.algorithm) \(s.publicKey.bits) bits"
        if let exponent = s.publicKey.rsaExponent { key += ", exponent \(exponent)" }
        if let curve = s.publicKey.curve { key += ", curve \(curve)" }
        lines.append(row("Public key", key))
        let san = s.subjectAlternativeNames
        let names = san.dns.map { "DNS \($0)" } + san.ip.map { "IP \($0)" } + san.email.map { "email \($0)" } + san.uri.map { "URI \($0)" } + san.other
        lines.append(row("SANs", names.isEmpty ? "none" : names.joined(separator: ", ") + critical("2.5.29.17")))
        if let bc = s.basicConstraints {
            lines.append(row("Basic constraints", "CA:\(bc.isCA ? "TRUE" : "FALSE")" + (bc.pathLength.map { ", pathlen \($0)" } ?? "") + critical("2.5.29.19")))
        }
        if let usage = s.keyUsage { lines.append(row("Key usage", usage.joined(separator: ", ") + critical("2.5.29.15"))) }
        if let usage = s.extendedKeyUsage { lines.append(row("Extended key usage", usage.joined(separator: ", ") + critical("2.5.29.37"))) }
        if let id = s.subjectKeyIdentifier { lines.append(row("Subject key id", id)) }
        if let id = s.authorityKeyIdentifier { lines.append(row("Authority key id", id)) }
        if !s.authorityInformationAccess.ocsp.isEmpty { lines.append(row("OCSP", s.authorityInformationAccess.ocsp.joined(separator: ", "))) }
        if !s.authorityInformationAccess.caIssuers.isEmpty { lines.append(row("CA issuers", s.authorityInformationAccess.caIssuers.joined(separator: ", "))) }
        if !s.crlDistributionPoints.isEmpty { lines.append(row("CRL", s.crlDistributionPoints.joined(separator: ", "))) }
        if !s.policies.isEmpty { lines.append(row("Policies", s.policies.joined(separator: ", "))) }
        lines.append(row("Embedded SCTs", "\(s.embeddedSCTCount)"))
        for ext in s.extensions where !ext.summarized {
            let text = ext.text.split(whereSeparator: \.isNewline).map { $0.trimmingSpaces() }.joined(separator: "; ")
            lines.append(row(t(ext.name) + (ext.critical ? " (critical)" : ""), text))
        }
        lines.append(row("SHA-256", s.fingerprints.sha256))
        lines.append(row("SHA-1", s.fingerprints.sha1))
        lines.append(row("SPKI pin (SHA-256)", s.fingerprints.spkiSHA256))
        for finding in s.findings {
            let label = "[\(finding.severity.rawValue)]"
            let painted = finding.severity == .critical ? terminal.red(label) : finding.severity == .warning ? terminal.yellow(label) : label
            lines.append("  \(painted) \(t(finding.message))")
        }
        return lines
    }
}
