import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import VigilAccounts
import VigilCertificates
import VigilCommandLine
import VigilLogging
import VigilServerCheck
import VigilSettings
import VigilStore

extension Vigil.ServerCommand.Check {
    /// The findings each server had at the last `--new-only` run, by server URL (codes only: what
    /// a finding says may change with the data, what it is does not).
    struct SeenFindings: Codable {
        var servers: [String: [String]] = [:]

        static var path: String { StatePaths.stateHome + "/vigil/server-check-seen.json" }

        static func load() -> SeenFindings {
            guard let data = FileManager.default.contents(atPath: path) else { return SeenFindings() }
            // A damaged file is a first run: every finding is new once, nothing is lost.
            return (try? JSONDecoder().decode(SeenFindings.self, from: data)) ?? SeenFindings()
        }

        func save() throws {
            let directory = String(Self.path[..<(Self.path.lastIndex(of: "/") ?? Self.path.endIndex)])
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            try encoder.encode(self).write(to: URL(fileURLWithPath: Self.path), options: .atomic)
        }
    }

    /// `--accounts` (and `--daily`): every account's server once, each judged with the account's
    /// own CAs; one line per server and one per finding, each with its journal priority; with
    /// `--new-only`, only the findings the server did not have at the last such run.
    func runAccounts(settings: Settings, logger: Logger) async throws {
        if daily, settings[.serverCheckDaily] != true {
            print(JournalStream.line("server check: the daily check of the accounts' servers is off (server-check.daily).", .info))
            return
        }
        let database = try await store.open()
        let accounts: [Account]
        do { accounts = try await Accounts(database: database).list() } catch { throw CommandFailure(error) }
        let base: TrustEvaluator
        do { base = try TrustEvaluator(caFilesOrSystem: caFiles, settings: settings) } catch { throw CommandFailure(error) }
        let accountCheck = AccountCheck(evaluator: base, database: database, settings: settings, logger: logger)
        let onlyNew = newOnly || daily
        var seen = onlyNew ? SeenFindings.load() : SeenFindings()
        let threshold = ServerFinding.Level(rawValue: failOn) ?? .warning
        var (failing, broken) = (false, false)
        var servers: [String] = []
        for account in accounts where !servers.contains(account.server) { servers.append(account.server) }
        for server in servers {
            let account = accounts.first { $0.server == server }
            let report: ServerCheck.Report
            do {
                // The account's own CAs, as account check judges it; ones that cannot be read are an error, never the system store.
                let evaluator = try caFiles.isEmpty ? account.map { try accountCheck.evaluator(for: $0) } ?? base : base
                report = try await makeCheck(settings: settings, logger: logger, evaluator: evaluator).run(server)
            } catch let error as ServerCheckError where error.code == .unreachable {
                // A laptop off the VPN: said, never a failure of the daily check.
                print(JournalStream.line("UNREACHABLE  \(SafeText.escaped(server)): \(SafeText.escaped(error.reason))", .warning))
                continue
            } catch {
                print(JournalStream.line("ERROR  \(SafeText.escaped(server)): \(SafeText.escaped(ExitStatus.described(error).message))", .error))
                broken = true
                continue
            }
            let before = Set(seen.servers[server] ?? [])
            let shown = onlyNew ? report.findings.filter { !before.contains($0.code) } : report.findings
            seen.servers[server] = report.findings.map(\.code)
            let worst = shown.map(\.level).max()
            let summary =
                "\(report.rating.grade)  \(SafeText.escaped(report.server)): "
                + (shown.isEmpty ? (onlyNew ? "nothing new" : "no finding") : "\(shown.count) \(onlyNew ? "new " : "")finding(s)")
            print(JournalStream.line(summary, worst.map(Self.priority) ?? .info))
            for finding in shown {
                print(JournalStream.line("  [\(finding.level.rawValue)] \(finding.code): \(SafeText.escaped(finding.message))", Self.priority(finding.level)))
            }
            if let worst, worst >= threshold { failing = true }
        }
        if onlyNew {
            do { try seen.save() } catch { throw CommandFailure("cannot keep what was found in \(SeenFindings.path): \(error)") }
        }
        if broken { throw ExitCode(ExitStatus.error) }
        if failing { throw ExitCode(ExitStatus.untrusted) }
    }

    static func priority(_ level: ServerFinding.Level) -> JournalStream.Priority {
        switch level {
        case .error: .error
        case .warning: .warning
        case .notice: .notice
        }
    }
}
