import Foundation
import VigilPaths
import VigilSettings
package import VigilSimulator
package import VigilStore

/// Any sync client as the suite's client (`vigil simulate --client`): its profile's command run
/// once per scenario against the simulator, non-interactively. What the client says (exit code,
/// output) is only its claim; ``ScenarioJudge/judgeByJournal(_:)`` decides from what reached the
/// simulated hosts.
package struct ExternalClient: SuiteClient {
    /// How the client is run.
    package var profile: ClientProfile

    /// A client run from `profile`.
    package init(profile: ClientProfile) { self.profile = profile }

    /// Always true: the suite cannot see an external client's store, keyring or logs.
    package var judgesByJournal: Bool { true }

    /// Settings that make a scenario's verdict depend on what only Vigil reads: public-key pins,
    /// a renewal rule. (Approved certificates are told to every client: added to its CA file.)
    package static let vigilOnlySettings = ["connection.pinned-public-keys", "connection.renewed-certificate-acceptance-rule"]

    /// Why an external client cannot be held to `scenario`, or nil when it can: a scenario that
    /// needs host names (`client.hosts`) outside a network namespace of the suite's, where no name
    /// server of the simulator's answers the client (`hostNames` false); one whose verdict depends
    /// on a setting only Vigil reads. A premise of an account set up before is played (the
    /// profile's `setup` run first, ``ScenarioRunner``).
    package static func notApplicable(_ scenario: Scenario, hostNames: Bool) -> String? {
        if !hostNames, !(scenario.client?.hosts ?? [:]).isEmpty {
            return "it needs host names, which only the name server of the suite's network namespace answers (run without --no-network-namespace)"
        }
        if let setting = vigilOnlySettings.first(where: { scenario.client?.settings?[$0] != nil }) {
            return "its verdict depends on Vigil's setting \(setting), which no other client reads"
        }
        return nil
    }

    /// Runs the profile's `prepare` commands, then its command; a success is only what the client claims (no account),
    /// a failure's code says how it ended (`exit-N`, `timeout`, `prepare-failed`, `client-did-not-start`).
    package func addAccount(_ context: SuiteClientContext) async -> SuiteClientResult {
        let scratch = context.stateDirectory + "/client"
        let home = scratch + "/home", sync = scratch + "/dir"
        do {
            for path in [scratch, home, sync] {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            let caFile = scratch + "/ca.pem"
            try context.trustedCABundle.write(to: URL(fileURLWithPath: caFile))
            let start = URLComponents(string: context.server)
            let password = context.user.password ?? ""
            var values = [
                "url": context.server, "host": start?.host ?? "", "port": start?.port.map(String.init) ?? "443",
                "user": context.userName, "password": password, "ca_file": caFile, "dir": sync, "tmp": scratch, "proxy": "",
            ]
            var environment = XDGDirectories.environment(home: home).merging(
                ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin", "TMPDIR": scratch, "LANG": "C.UTF-8"],
                uniquingKeysWith: { $1 })
            // A scenario's forward proxy (connection.proxy): told to the client the way sync
            // clients are told one, the proxy variables (and `{proxy}` for profiles that take a flag).
            if let proxy = context.settings[.proxy], proxy.hasPrefix("http://") || proxy.hasPrefix("https://") {
                for name in ["https_proxy", "HTTPS_PROXY", "http_proxy", "all_proxy"] { environment[name] = proxy }
                values["proxy"] = proxy
            }
            let timeout = Duration.milliseconds(Int64((profile.timeout ?? 60) * 1000))
            var escapes: [String] = []
            for (name, template) in (profile.prepare ?? [:]).sorted(by: { $0.key < $1.key }) {
                var command = ExternalCommand(
                    arguments: template.map { ClientProfile.expand($0, values) }, environment: environment, directory: scratch, timeout: timeout)
                command.resolver = context.resolver
                command.cellBase = PathName.directory(of: context.stateDirectory)
                let prepared = try await command.run(outputFile: scratch + "/prepare-\(name).out")
                guard prepared.status == 0 else {
                    var result = SuiteClientResult.failed(
                        .notImplemented, code: "prepare-failed", "The profile's prepare.\(name) failed (\(Self.describe(prepared))).")
                    result.cellEscapes = prepared.escapes
                    return result
                }
                escapes += prepared.escapes
                values[name] = prepared.output.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            for (name, template) in profile.environment ?? [:] { environment[name] = ClientProfile.expand(template, values) }
            let template =
                switch context.phase {
                case .only: profile.command
                case .setup: profile.setup ?? profile.command
                case .later: profile.later ?? profile.command
                }
            var command = ExternalCommand(
                arguments: template.map { ClientProfile.expand($0, values) }, environment: environment,
                directory: scratch, timeout: timeout)
            command.resolver = context.resolver
            command.cellBase = PathName.directory(of: context.stateDirectory)
            let finished = try await command.run(outputFile: scratch + (context.phase == .setup ? "/setup.log" : "/output.log"))
            escapes += finished.escapes.filter { !escapes.contains($0) }
            // Judged only once every connection the client opened is closed, or cut after a grace period.
            let cut = await context.settle(.seconds(2))
            let output = password.count >= 4 ? finished.output.replacingOccurrences(of: password, with: "«password»") : finished.output
            var said = Self.lastLines(output)
            if finished.leftovers > 0 { said += " (\(finished.leftovers) process(es) it left behind were killed)" }
            if cut > 0 { said += " (\(cut) connection(s) it left open were cut)" }
            let claimsSuccess =
                finished.status.map { (profile.successExitCodes ?? [0]).contains($0) } ?? false
                && !(profile.failurePatterns ?? []).contains { output.range(of: $0, options: .regularExpression) != nil }
            var result =
                claimsSuccess
                ? SuiteClientResult(
                    account: nil, failureKind: nil, message: "\(profile.name) exited \(finished.status ?? 0)" + (said.isEmpty ? "" : ": \(said)"),
                    code: "exit-0")
                : .failed(
                    .error, code: finished.timedOut ? "timeout" : "exit-\(finished.status.map(String.init) ?? "signal")",
                    "\(profile.name) \(Self.describe(finished))" + (said.isEmpty ? "" : ": \(said)"))
            result.cellEscapes = escapes
            return result
        } catch {
            return .failed(.notImplemented, code: "client-did-not-start", "\(profile.name) could not be run: \(error)")
        }
    }

    /// Does nothing: the suite keeps no account for an external client.
    package func removeAccount(_ account: Account, context: SuiteClientContext) async throws {}

    static func describe(_ finished: ExternalCommand.Finished) -> String {
        if finished.timedOut { return "was killed after its timeout" }
        return finished.status.map { "exited \($0)" } ?? "was killed by a signal"
    }

    /// The output's last three non-empty lines, on one line.
    static func lastLines(_ output: String) -> String {
        SuiteText.oneLine(
            output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.suffix(3).joined(separator: " | "))
    }
}
