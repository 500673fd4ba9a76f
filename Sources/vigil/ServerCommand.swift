import ArgumentParser
import FoundationEssentials
import Logging
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
                abstract: "Check a server's setup from outside (TLS, headers, the cloud's setup and version) and grade it A+ to F.",
                usage: CommandHelp.usage("server check"),
                discussion: CommandHelp.discussion(
                    "server check",
                    """
                    The certificate is judged as inspect judges it. Then, for SSL 3.0 to TLS 1.3, whether the server accepts \
                    the version and every suite it accepts in it (by IANA name), found as sslscan finds them (the suites this \
                    machine's OpenSSL lacks, 3DES and RC4, by a ClientHello Vigil writes itself); whose order decides; the \
                    key exchange group and a Diffie-Hellman group's size. When the certificate is trusted: HSTS and the \
                    headers, and for a cloud its setup checks (data directory, .well-known, WebDAV) and its version against \
                    end-of-life dates and advisories (a dated snapshot; --advisories takes a newer one). Each finding says \
                    what it allows and the nginx and Apache directive that fixes it; the grade's rule is in docs/cli.md. No \
                    credential is ever sent; connections go through the configured proxy, paced by the server-check.* \
                    settings.

                    --accounts checks every account's server (with the account's own CAs); --new-only prints only the \
                    findings a server did not have at the last such run; --daily is what the daily check runs: both, and \
                    only when the server-check.daily setting is on.

                    Exit codes: 0 nothing at or above --fail-on, 1 a finding at or above it, 2 the server could not be \
                    checked (unreachable, not TLS, no handshake, past the deadline, a damaged data file), 64 usage error.
                    """))

            @Argument(help: "The server, https://HOST[:PORT][/PATH].") var url: String?
            @Flag(help: "Check every account's server instead of one URL.") var accounts = false
            @Flag(help: "Print only the findings a server did not have at the last --new-only run.") var newOnly = false
            @Flag(help: "The daily check: --accounts --new-only, only when server-check.daily is on.") var daily = false
            @OptionGroup var store: Vigil.Certificates.StoreOptions
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
                if (url == nil) == !(accounts || daily) { throw ValidationError("Give one server URL, or --accounts (or --daily) for every account's server.") }
                if junit != nil || json, url == nil { throw ValidationError("--junit and --json go with one server URL.") }
                if newOnly, url != nil { throw ValidationError("--new-only goes with --accounts.") }
            }

            func run() async throws {
                EarlyWork.transfers()
                let (settings, logger) = try CommandContext.start(logOptions)
                guard let url else { return try await runAccounts(settings: settings, logger: logger) }
                let report: ServerCheck.Report
                do {
                    report = try await makeCheck(
                        settings: settings, logger: logger, evaluator: try TrustEvaluator(caFilesOrSystem: caFiles, settings: settings)
                    )
                    .run(url)
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

            /// The check as the flags and settings set it up: the probe (timeout, proxy), the
            /// profile and advisories, the pacing and the deadline.
            func makeCheck(settings: Settings, logger: Logger, evaluator: TrustEvaluator) throws -> ServerCheck {
                let probe = TLSProbe(timeout: .milliseconds(Int64(timeout * 1000)), logger: logger, proxy: ProxyConfiguration(settings: settings))
                var check = ServerCheck(probe: probe, evaluator: evaluator)
                check.profile = try TLSProfile.load(profile, from: DataLocations.serverData + "/tls-profiles.json")
                check.advisories = try AdvisorySnapshot.load(from: advisories ?? DataLocations.serverData + "/advisories.json")
                check.httpPort = httpPort
                check.deadline = .milliseconds(Int64(deadline * 1000))
                check.connectionsAtOnce = settings[.serverCheckConnectionsAtOnce] ?? 2
                check.connectionsPerSecond = settings[.serverCheckConnectionsPerSecond] ?? 200
                return check
            }
        }
    }
}
