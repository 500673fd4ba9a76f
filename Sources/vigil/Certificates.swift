import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import VigilAccounts
import VigilCertificates
import VigilCommandLine
import VigilHTTP
import VigilLogging
import VigilSettings
import VigilStore
import VigilText
import VigilThreads

extension Vigil {
    /// `vigil certificates`: the certificates users approved, their revocation and the audit trail.
    struct Certificates: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "certificates",
            abstract: "Approve, list, revoke and audit the certificates users approved.",
            discussion: "The store is $XDG_DATA_HOME/vigil/vigil.sqlite unless --database names another file.",
            subcommands: [Approve.self, List.self, Show.self, Revoke.self, Audit.self, RuleTest.self]
        )

        /// `--database`, on every subcommand.
        struct StoreOptions: ParsableArguments {
            @Option(help: "The database file (default: $XDG_DATA_HOME/vigil/vigil.sqlite).", completion: Completions.file)
            var database: String?

            /// The database, or a failure with the reason (a file that is not a Vigil database, say).
            /// A database the user named is named by every command Vigil then suggests.
            func open() throws -> VigilDatabase {
                if let database { SuggestedCommand.locate(database: database) }
                do {
                    return try VigilDatabase(path: database ?? VigilDatabase.defaultPath())
                } catch {
                    throw CommandFailure(error)
                }
            }

            /// The same for async commands: opened on the database's own queue.
            func open() async throws -> VigilDatabase {
                if let database { SuggestedCommand.locate(database: database) }
                do {
                    return try await VigilDatabase.open(path: database ?? VigilDatabase.defaultPath())
                } catch {
                    throw CommandFailure(error)
                }
            }
        }

        struct Approve: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "approve",
                abstract: "Approve a server's certificate after checking its fingerprint.",
                usage: CommandHelp.usage("certificates approve"),
                discussion: CommandHelp.discussion(
                    "certificates approve",
                    """
                    Connects to URL (a TLS handshake, no HTTP request), and approves the leaf certificate for that \
                    host and port only if its SHA-256 fingerprint is the one given, obtained from the server's admin \
                    through another channel. A certificate that no approval can make safe (for another name, a weak \
                    key or signature, a CA certificate as the server's) is refused. Exit codes: 0 approved, 1 the \
                    fingerprint differs or the certificate cannot be approved (nothing approved), 2 error. \
                    Offline, with --file PEM --host HOST[:PORT] instead of URL: the file's leaf is summarized and, \
                    if its fingerprint is the one given and the approval rule allows it, approved for that host and \
                    port without contacting the server (port 443 when none is given).
                    """)
            )
            @Argument(help: "The server, https://HOST[:PORT].") var url: String?
            @Option(help: "Approve the leaf of this PEM file instead of connecting (with --host).") var file: String?
            @Option(help: "With --file: the host (and port, default 443) the approval is for.") var host: String?
            @Option(help: "The leaf's SHA-256 fingerprint (hex, colons optional, any case).") var fingerprint: String
            @Option(help: "Why it was approved, kept with the approval.") var note: String?
            @Option(help: "Seconds to wait for the connection and handshake.") var timeout: Double = 10
            @Option(
                name: .customLong("ca-file"), help: "Judge the chain against only the CAs in this PEM file instead of the system store (repeatable).",
                completion: Completions.file)
            var caFiles: [String] = []
            @OptionGroup var proxy: ProxyOptions
            @OptionGroup var store: StoreOptions
            @OptionGroup(title: "Log options") var logOptions: LogOptions

            func validate() throws {
                guard (url == nil) != (file == nil) else { throw ValidationError("Give either the server URL or --file PEM with --host.") }
                if file != nil {
                    guard let host, (try? Endpoint(url: "https://" + host)) != nil else { throw ValidationError("--file needs --host HOST[:PORT].") }
                }
                guard Self.normalized(fingerprint).count == 64 else {
                    throw ValidationError("--fingerprint must be a SHA-256 fingerprint: 64 hex digits, colons optional.")
                }
                guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be between 0 and 600 seconds.") }
            }

            static func normalized(_ text: String) -> String {
                String(text.lowercased().filter { $0.isHexDigit })
            }

            /// `--approve-certificate`'s check, for every command that takes it.
            static func validate(approving fingerprint: String?) throws {
                if let fingerprint, normalized(fingerprint).count != 64 {
                    throw ValidationError("--approve-certificate must be a SHA-256 fingerprint: 64 hex digits, colons optional.")
                }
            }

            func run() async throws {
                let (settings, logger) = try CommandContext.start(logOptions)
                let requirements = ConnectionRequirements(settings: settings)
                let approvals = try await CertificateApprovals(database: store.open())
                do {
                    let endpoint = try Endpoint(url: url ?? "https://" + (host ?? ""))
                    let handshake: TLSProbe.Handshake
                    if let file {
                        let chain = try Certificate.load(path: file)
                        handshake = TLSProbe.Handshake(
                            chain: chain, protocolVersion: "TLSv1.3", negotiated: .tls13, cipher: "offline", remoteAddress: "offline")
                        let evaluation = try TrustEvaluator(caFilesOrSystem: caFiles, settings: settings).evaluate(chain, for: endpoint.peerName)
                        let report = InspectReport(
                            target: .init(kind: "files", url: endpoint.description, files: [file], peerName: endpoint.peerName),
                            evaluation: evaluation, sent: chain, connection: nil)
                        print(InspectTextRenderer(terminal: .standardOutput).render(report), terminator: "")
                    } else {
                        handshake = try await TLSProbe(
                            timeout: .milliseconds(Int64(timeout * 1000)), logger: logger, proxy: ProxyConfiguration(settings: settings)
                        ).handshake(with: endpoint)
                    }
                    guard let leaf = handshake.chain.first else { throw CommandFailure("\(endpoint) sent no certificate.") }
                    guard Self.normalized(leaf.sha256Fingerprint) == Self.normalized(fingerprint) else {
                        StandardStream.writeError("vigil: not approved: \(endpoint) presents \(leaf.sha256Fingerprint), not the fingerprint given.\n")
                        throw ExitCode(ExitStatus.untrusted)
                    }
                    let evaluator = try TrustEvaluator(caFilesOrSystem: caFiles, settings: settings)
                    let evaluation = await ConnectionJudge(evaluator: evaluator, requirements: requirements).verdict(for: handshake, endpoint: endpoint)
                    // The one decision (ConnectionDecision): what no approval can make acceptable is refused.
                    let refusals = ConnectionDecision.decide(evaluation, chain: handshake.chain, endpoint: endpoint).refusesApproval
                    guard refusals.isEmpty else {
                        StandardStream.writeError("vigil: not approved: \(SafeText.escaped(refusals.map(\.message).joined(separator: " ")))\n")
                        throw ExitCode(ExitStatus.untrusted)
                    }
                    let approval = try await approvals.approve(leaf, host: endpoint.host, port: endpoint.port, note: note)
                    logger.privacy.notice("Approved a certificate for \(endpoint.description)", metadata: ["tags": "certificates"])
                    print(
                        SafeText.escaped(
                            "approved \(approval.id.map(String.init) ?? "?")  \(Endpoint(host: approval.host, port: approval.port).originKey)  \(approval.sha256)  \(approval.subject)"
                        ))
                } catch {
                    throw CommandFailure(error)
                }
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List approved certificates.",
                usage: CommandHelp.usage("certificates list"),
                discussion: CommandHelp.discussion("certificates list"))
            @Flag(help: "Include revoked approvals.") var all = false
            @Flag(help: "JSON instead of text.") var json = false
            @OptionGroup var store: StoreOptions
            @OptionGroup(title: "Log options") var logOptions: LogOptions

            func run() throws {
                _ = try CommandContext.start(logOptions)
                do {
                    // Streamed: rows are written as they are read (100,000 approvals in one pass).
                    var output = BufferedOutput()
                    var stream = JSONArrayStream()
                    var rows = 0
                    typealias C = CertificateApprovals.ListedColumn
                    try CertificateApprovals(database: store.open()).forEachStored(includingRevoked: all) { row in
                        rows += 1
                        if json {
                            // The fields of ApprovedCertificate, in key order, nil ones left out.
                            stream.beginObject(into: &output)
                            stream.date("approvedAt", row, C.approvedAt, into: &output)
                            stream.string("host", row, C.host, into: &output)
                            stream.integer("id", row, C.id, into: &output)
                            stream.string("issuer", row, C.issuer, into: &output)
                            stream.string("notAfter", row, C.notAfter, into: &output)
                            stream.string("note", row, C.note, into: &output)
                            stream.integer("port", row, C.port, into: &output)
                            stream.string("revocationReason", row, C.revocationReason, into: &output)
                            stream.date("revokedAt", row, C.revokedAt, into: &output)
                            stream.string("sha256", row, C.sha256, into: &output)
                            stream.string("spkiSHA256", row, C.spkiSHA256, into: &output)
                            stream.string("subject", row, C.subject, into: &output)
                            stream.endObject(into: &output)
                            return
                        }
                        // ID  HOST:PORT  SHA256  SUBJECT  approved TIME  active|revoked TIME: REASON,
                        // every part escaped as SafeText escapes a line.
                        output.write(row.integer(C.id))
                        output.write(literal: "  ")
                        output.escaped(row.text(C.host))
                        output.write(literal: ":")
                        output.write(row.integer(C.port))
                        output.write(literal: "  ")
                        output.escaped(row.text(C.sha256))
                        output.write(literal: "  ")
                        output.escaped(row.text(C.subject))
                        output.write(literal: "  approved ")
                        output.isoTime(row, C.approvedAt)
                        if row.isNull(C.revokedAt) {
                            output.line("  active")
                        } else {
                            output.write(literal: "  revoked ")
                            output.isoTime(row, C.revokedAt)
                            output.write(literal: ": ")
                            output.escaped(row.text(C.revocationReason))
                            output.line("")
                        }
                    }
                    if json { stream.finish(into: &output) } else if rows == 0 { output.line("no approved certificates") }
                    output.flush()
                } catch {
                    throw CommandFailure(error)
                }
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "revoke", abstract: "Revoke an approval (kept for the audit).",
                usage: CommandHelp.usage("certificates revoke"),
                discussion: CommandHelp.discussion("certificates revoke"))
            @Argument(help: ArgumentHelp("The approval's id (see vigil certificates list).", valueName: "approval")) var id: Int64
            @Option(help: "Why, kept with the revocation.") var reason: String
            @OptionGroup var store: StoreOptions
            @OptionGroup(title: "Log options") var logOptions: LogOptions

            func run() async throws {
                let (_, logger) = try CommandContext.start(logOptions)
                do {
                    let approval = try await CertificateApprovals(database: store.open()).revoke(id: id, reason: reason)
                    logger.privacy.notice("Revoked approval \(public: id)", metadata: ["tags": "certificates"])
                    print(SafeText.escaped("revoked \(id)  \(approval.host):\(approval.port)  \(approval.sha256)"))
                } catch {
                    throw CommandFailure(error)
                }
            }
        }

        struct Audit: AsyncParsableCommand {
            /// The audit kinds this version knows, as UTF-8 (compared with the stored bytes).
            static let knownKinds: [[UInt8]] = AuditEvent.Kind.known.map { Array($0.rawValue.utf8) }
            static let configuration = CommandConfiguration(
                commandName: "audit",
                abstract: "Show the audit trail, or (--check) the approvals that need attention.",
                usage: CommandHelp.usage("certificates audit"),
                discussion: CommandHelp.discussion(
                    "certificates audit",
                    """
                    Without --check: approvals, revocations, accounts added and removed, each with the OS user who \
                    acted. With --check: active approvals that expired or expire within 30 days, that the approval \
                    rule would now refuse (a weak key or signature, a CA as leaf), that no account uses; revoked \
                    approvals whose key is still pinned; with --live also those whose server presents another \
                    certificate now. Accounts too (approval id 0): a client certificate expired or expiring, and the \
                    CA certificates an account was added with (--ca-file) damaged, expired or expiring, not a CA, or \
                    no longer verifying the chain reviewed for it. Each finding has a level: error (expired, refused by the rule, pinned though \
                    revoked, no longer presented), warning (expires soon, unreachable), notice (unused, not kept). \
                    Exit codes: 0 nothing to report (or, with --fail-on, nothing at that level or above), 1 something \
                    needs attention (for cron and CI), 2 error.
                    """)
            )
            @Flag(help: "Report the approvals that need attention instead of the trail.") var check = false
            @Flag(help: "With --check: also ask each server which certificate it presents now (a TLS handshake, no request).") var live = false
            @Flag(help: "JSON instead of text.") var json = false
            @Option(help: "With --check: exit 1 only for findings at this level or above: error, warning or notice (default: notice, every finding).")
            var failOn: String?
            @Flag(
                help:
                    "With --live: a server that cannot be reached is said (a warning) but does not count for --fail-on: for a timer on a machine off the VPN."
            )
            var tolerateUnreachable = false
            @OptionGroup var proxy: ProxyOptions
            @OptionGroup var store: StoreOptions
            @OptionGroup(title: "Log options") var logOptions: LogOptions

            func validate() throws {
                if live && !check { throw ValidationError("--live goes with --check.") }
                if tolerateUnreachable && !live { throw ValidationError("--tolerate-unreachable goes with --live.") }
                if failOn != nil && !check { throw ValidationError("--fail-on goes with --check.") }
                guard ["error", "warning", "notice"].contains(failOn ?? "notice") else { throw ValidationError("--fail-on must be error, warning or notice.") }
            }

            func run() async throws {
                let (settings, _) = try CommandContext.start(logOptions)
                do {
                    let database = try await store.open()
                    if check {
                        var audit = ApprovalAudit(
                            approvals: CertificateApprovals(database: database), accounts: Accounts(database: database),
                            requirements: ConnectionRequirements(settings: settings))
                        audit.evaluatorConfiguration.applyPolicyInputs(from: settings)
                        audit.clientCertificateWarningDays = settings[.clientCertificateExpiryWarningDays] ?? 30
                        let problems = try await audit.check(live: live, proxy: ProxyConfiguration(settings: settings))
                        if json {
                            // Each with the level --fail-on compares (`error`, `warning`, `notice`).
                            print(
                                try JSONOutput.text(
                                    problems.map {
                                        Shown(
                                            level: Self.level($0.code), approval: $0.approval, target: $0.target, code: $0.code, message: $0.message)
                                    }))
                        } else if problems.isEmpty {
                            print(JournalStream.line("no approval needs attention", .info))
                        } else {
                            // Each line leads with its level, the one --fail-on compares.
                            for problem in problems {
                                let priority = Self.priority(problem.code)
                                print(
                                    JournalStream.line(
                                        SafeText.escaped(
                                            "\(Self.level(priority))  \(problem.approval)  \(problem.target)  \(problem.code)  \(problem.message)"), priority))
                            }
                        }
                        let threshold: JournalStream.Priority = failOn == "error" ? .error : failOn == "warning" ? .warning : .notice  // nil: notice
                        let counted = problems.filter { !(tolerateUnreachable && $0.code == "unreachable") }
                        if counted.contains(where: { Self.priority($0.code).rawValue <= threshold.rawValue }) { throw ExitCode(ExitStatus.untrusted) }
                        return
                    }
                    try await BlockingQueue.database.run { [json] in try Self.printTrail(database, json: json) }
                } catch {
                    throw CommandFailure(error)
                }
            }

            /// One finding as --json shows it: the audit's problem and its level.
            struct Shown: Encodable {
                var level: String
                var approval: Int64
                var target: String
                var code: String
                var message: String
            }

            /// A finding's level as --fail-on names it.
            static func level(_ code: String) -> String {
                switch priority(code) {
                case .error: "error"
                case .warning: "warning"
                default: "notice"
                }
            }

            /// A finding's level in words, as --fail-on names it.
            static func level(_ priority: JournalStream.Priority) -> String {
                switch priority {
                case .error: "ERROR  "
                case .warning: "WARNING"
                default: "NOTICE "
                }
            }

            /// How much a finding needs a person (the journal's priority under the vigil-check unit).
            static func priority(_ code: String) -> JournalStream.Priority {
                switch code {
                case "expires-soon", "client-certificate-expires-soon", "account-ca-expires-soon", "unreachable": return .warning
                case "not-kept", "unused": return .notice
                default: return .error
                }
            }

            /// The audit trail streamed to standard output as it is read (on the database's queue).
            static func printTrail(_ database: VigilDatabase, json: Bool) throws {
                var output = BufferedOutput()
                var stream = JSONArrayStream()
                typealias A = VigilDatabase.AuditColumn
                try database.forEachStoredAuditEvent { row in
                    if json {
                        // The fields of AuditEvent, in key order, nil ones left out.
                        stream.beginObject(into: &output)
                        stream.string("actor", row, A.actor, into: &output)
                        stream.string("detail", row, A.detail, into: &output)
                        stream.integer("id", row, A.id, into: &output)
                        stream.string("kind", row, A.kind, into: &output)
                        stream.string("target", row, A.target, into: &output)
                        stream.date("time", row, A.time, into: &output)
                        stream.endObject(into: &output)
                        return
                    }
                    // TIME  KIND  TARGET  DETAIL  by ACTOR, every part escaped as SafeText escapes a line.
                    output.isoTime(row, A.time)
                    output.write(literal: "  ")
                    let kind = row.text(A.kind)
                    output.escaped(kind)
                    if !Self.knownKinds.contains(where: { known in
                        known.count == kind.count && known.withUnsafeBufferPointer { memcmp($0.baseAddress!, kind.baseAddress!, kind.count) == 0 }
                    }) {
                        output.write(literal: " (a kind this version does not know)")
                    }
                    output.write(literal: "  ")
                    output.escaped(row.text(A.target))
                    output.write(literal: "  ")
                    output.escaped(row.text(A.detail))
                    output.write(literal: "  by ")
                    if row.isNull(A.actor) { output.write(literal: "(not recorded)") } else { output.escaped(row.text(A.actor)) }
                    output.line("")
                }
                if json { stream.finish(into: &output) }
                output.flush()
            }
        }

    }
}
