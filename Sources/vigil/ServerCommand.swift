import ArgumentParser
import FoundationEssentials
import VigilAccounts
import VigilCertificates
import VigilCommandLine
import VigilHTTP
import VigilLogging
import VigilServerCheck
import VigilSettings
import VigilText

extension Vigil {
    /// `vigil server check URL`: the server's own TLS setup, outside in (docs/cli.md).
    struct ServerCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "server", abstract: "Check a server's own setup: the TLS versions and suites it accepts, and what they allow.",
            subcommands: [Check.self])

        struct Check: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Scan a server's TLS setup by handshakes (no request, no credential) and judge it.",
                usage: CommandHelp.usage("server check"),
                discussion: CommandHelp.discussion(
                    "server check",
                    """
                    The certificate is judged as inspect judges it. Then, for TLS 1.0 to 1.3, whether the server accepts the \
                    version and every suite it accepts in it (by IANA name), found the way sslscan finds them: every suite \
                    this machine's OpenSSL has is offered, and the one the server chose taken away, one handshake at a time, \
                    one connection at a time; whether its own order decides; the key exchange group and a Diffie-Hellman \
                    group's size. Findings are named for what they allow (SWEET32, RC4, no forward secrecy, LOGJAM...), \
                    each with the nginx and Apache directive that fixes it. Connections go through the configured proxy.

                    Exit codes: 0 nothing at or above --fail-on, 1 a finding at or above it, 2 the server could not be \
                    checked (unreachable, not TLS), 64 usage error.
                    """))

            @Argument(help: "The server, https://HOST[:PORT].") var url: String
            @Option(
                name: .customLong("ca-file"), help: "Judge the certificate against only the CAs in this PEM file (repeatable).",
                completion: Completions.file)
            var caFiles: [String] = []
            @Option(help: "Exit 1 for a finding at this level or above: notice, warning or error.") var failOn: String = "warning"
            @Option(help: "Seconds each handshake may take.") var timeout: Double = 5
            @Option(help: "Hold the server to this Mozilla Server Side TLS profile: modern, intermediate or old.") var profile: String = "intermediate"
            @Option(
                help: "Hold the cloud's version to this end-of-life and advisories file instead of the snapshot Vigil ships (format: docs/cli.md).",
                completion: Completions.file)
            var advisories: String?
            @Option(help: "Seconds the whole check may take (default 120); past it, exit 2 and nothing judged.") var deadline: Double = 120
            @Option(name: .customLong("http-port"), help: "Also ask plain http on this port, which should only redirect to https.") var httpPort: Int?
            @Flag(help: "JSON instead of text (docs/cli.md).") var json = false
            @Option(help: "Also write JUnit XML to this file: one testcase per check, failed at or above --fail-on.", completion: Completions.file)
            var junit: String?
            @OptionGroup(title: "Log options") var logOptions: LogOptions

            func validate() throws {
                guard ServerFinding.Level(rawValue: failOn) != nil else { throw ValidationError("--fail-on must be notice, warning or error.") }
                guard timeout > 0, timeout <= 120 else { throw ValidationError("--timeout must be from 0 to 120 seconds.") }
                guard deadline > 0, deadline <= 3_600 else { throw ValidationError("--deadline must be from 0 to 3600 seconds.") }
                guard ["modern", "intermediate", "old"].contains(profile) else { throw ValidationError("--profile must be modern, intermediate or old.") }
                if let httpPort, !(1...65535).contains(httpPort) { throw ValidationError("--http-port must be from 1 to 65535.") }
            }

            func run() async throws {
                EarlyWork.transfers()
                let (settings, logger) = try CommandContext.start(logOptions)
                let report: ServerCheck.Report
                do {
                    let probe = TLSProbe(timeout: .milliseconds(Int64(timeout * 1000)), logger: logger, proxy: ProxyConfiguration(settings: settings))
                    var check = ServerCheck(probe: probe, evaluator: try TrustEvaluator(caFilesOrSystem: caFiles, settings: settings))
                    check.profile = try TLSProfile.load(profile, from: DataLocations.serverData + "/tls-profiles.json")
                    check.advisories = try AdvisorySnapshot.load(from: advisories ?? DataLocations.serverData + "/advisories.json")
                    check.httpPort = httpPort
                    check.deadline = .milliseconds(Int64(deadline * 1000))
                    check.connectionsAtOnce = settings[.serverCheckConnectionsAtOnce] ?? 2
                    check.connectionsPerSecond = settings[.serverCheckConnectionsPerSecond] ?? 100
                    report = try await check.run(url)
                } catch {
                    throw CommandFailure(error)
                }
                if let junit {
                    do {
                        try Data(report.junit(failOn: ServerFinding.Level(rawValue: failOn) ?? .warning).utf8).write(
                            to: URL(fileURLWithPath: junit), options: .atomic)
                    } catch {
                        throw CommandFailure("cannot write the JUnit report \(junit): \(error)")
                    }
                }
                if json {
                    print(try JSONOutput.text(report))
                } else {
                    print(Self.text(report), terminator: "")
                }
                if let worst = report.worst, let threshold = ServerFinding.Level(rawValue: failOn), worst >= threshold {
                    throw ExitCode(ExitStatus.untrusted)
                }
            }

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
                if let profile = report.profile { lines.append("  profile: \(profile)") }
                if let advisories = report.advisories, report.cloud != nil { lines.append("  advisories: the snapshot of \(advisories)") }
                for version in report.versions {
                    guard version.accepted else {
                        lines.append("  \(version.version): not accepted")
                        continue
                    }
                    let order = version.serverOrder.map { $0 ? "the server's order" : "the client's order" } ?? "one suite"
                    lines.append("  \(version.version): accepted, \(version.suites.count) suite(s), \(order)")
                    for suite in version.suites {
                        // A Diffie-Hellman group's size matters (LOGJAM); a named curve's is its name.
                        let key =
                            suite.ephemeralKey.map { $0 == "DH" ? " DH \(suite.ephemeralBits) bits" : suite.group == nil ? " \($0)" : "" }
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
    }
}
