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

extension Vigil {
    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "inspect",
            abstract: "Inspect a certificate chain: summary, findings and trust verdict.",
            usage: CommandHelp.usage("inspect"),
            discussion: CommandHelp.discussion(
                "inspect",
                """
                Live: vigil inspect https://HOST[:PORT] performs a TLS handshake (no HTTP request is sent).

                Files: vigil inspect --file LEAF.pem [MORE.pem ...] (PEM with one or many certificates, or DER).

                Offline revocation of the whole path: vigil inspect --file chain.pem --ca-file root.pem \
                --crl-file crls.pem --at 2026-01-15 --host files.example.com (every certificate but the root \
                must be covered by a CRL given).

                Exit codes: 0 trusted, 1 untrusted, 2 error (bad input, unreachable host), 64 usage error.
                """)
        )

        @Argument(help: "The server to inspect, https://HOST[:PORT]. IPv6 in brackets.")
        var url: String?

        @Option(
            name: .customLong("file"), parsing: .upToNextOption, help: "Certificate files: the leaf first, then any intermediates.",
            completion: Completions.file)
        var files: [String] = []

        @Option(help: "The host name or IP address the certificate must be valid for (files only; a URL gives its own).")
        var host: String?

        @Option(
            name: .customLong("ca-file"), help: "Trust only the CAs in this PEM file instead of the system store (repeatable).", completion: Completions.file)
        var caFiles: [String] = []

        @Option(
            name: .customLong("crl-file"),
            help: ArgumentHelp(
                "Check every certificate of the path but its anchor against these CRLs (one DER CRL or any number of PEM ones; repeatable; indirect and delta CRLs included): revoked is untrusted, and so is a certificate no given CRL covers.",
                valueName: "file"), completion: .file())
        var crlFiles: [String] = []

        @Option(
            name: .customLong("ocsp-response"),
            help: ArgumentHelp(
                "Read this OCSP response (DER) about the server certificate, as if stapled: revoked is untrusted (offline; live, the server's own staple comes first).",
                valueName: "file"), completion: .file())
        var ocspResponse: String?

        @Option(help: "Evaluate at this time (ISO 8601, for example 2030-01-01T00:00:00Z) instead of now.")
        var at: String?

        @Option(help: "Seconds to wait for the connection and handshake.")
        var timeout: Double = 10

        @OptionGroup var resolveOptions: ResolveOptions

        @Option(
            help:
                "The rules that decide: webpki (RFC 5280 and the CA/Browser Forum's) or rfc5280 (default: by the anchor: webpki for the system store, rfc5280 for CAs you supply).",
            completion: Completions.profiles)
        var profile: String?

        @Flag(help: "Print the report as JSON (schema in docs/cli.md).")
        var json = false

        @OptionGroup var clientCertificateOptions: ClientCertificateOptions

        @OptionGroup(title: "Log options") var logOptions: LogOptions

        func validate() throws {
            if url == nil && files.isEmpty {
                throw ValidationError("Give a URL (https://HOST[:PORT]) or --file PATH.")
            }
            if url != nil && !files.isEmpty {
                throw ValidationError("Give either a URL or --file, not both.")
            }
            if url != nil && host != nil {
                throw ValidationError("--host is for --file; a URL is checked against its own host.")
            }
            if let at, Self.parseTime(at) == nil {
                throw ValidationError("--at \(at) is not an ISO 8601 time such as 2030-01-01T00:00:00Z.")
            }
            if let profile, TrustProfile(rawValue: profile) == nil { throw ValidationError("--profile must be webpki or rfc5280.") }
            if !(timeout > 0 && timeout <= 600) {
                throw ValidationError("--timeout must be between 0 and 600 seconds.")
            }
        }

        /// A CRL file as PEM: PEM as it is, DER wrapped in its PEM armour; an unreadable file is an error.
        static func crlPEM(_ path: String) throws -> String {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CertificateError(.unreadableFile, "The CRL file \(SafeText.escaped(path)) cannot be read.")
            }
            if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN X509 CRL-----") { return text }
            let body = data.base64EncodedString(options: .lineLength64Characters)
            return "-----BEGIN X509 CRL-----\n\(body)\n-----END X509 CRL-----\n"
        }

        static func readFile(_ path: String) throws -> [UInt8] {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CertificateError(.unreadableFile, "The file \(SafeText.escaped(path)) cannot be read.")
            }
            return [UInt8](data)
        }

        /// What a server does with `identity`: refused before a connection when the server is not
        /// trusted or the identity should not be used; else one `GET /` over a connection that
        /// accepts only `leaf`, with the identity for `endpoint` alone.
        static func present(
            _ identity: ClientIdentity, to endpoint: Endpoint, leaf: Certificate, trusted: Bool, evaluator: TrustEvaluator,
            requirements: ConnectionRequirements, logger: Logger
        ) async -> String {
            guard trusted else { return "not presented: the server's certificate is not trusted" }
            let refusals = identity.refusals()
            guard refusals.isEmpty else { return "not presented: " + refusals.map(\.message).joined(separator: " ") }
            var configuration = HTTPClient.Configuration()
            configuration.clientIdentity = ClientIdentityBinding(identity: identity, origin: endpoint)
            configuration.minimumTLSVersion = requirements.minimumTLSVersion
            configuration.maximumBodySize = 1 << 20
            configuration.timeout = .seconds(10)
            configuration.proxy = requirements.revocation.proxy
            let client = HTTPClient(
                policy: EvaluatorTrustPolicy(
                    judge: ConnectionJudge(evaluator: evaluator, requirements: requirements), reviewedLeaves: [endpoint: leaf.sha256Fingerprint]),
                configuration: configuration, logger: logger)
            do {
                let answer = try await client.send(HTTPRequest(url: "\(endpoint)/"))
                return answer.clientCertificate?.presented == true
                    ? "accepted (HTTP \(answer.status))" : "not asked for on this connection (HTTP \(answer.status))"
            } catch let error as HTTPError where error.code == .clientCertificateRefused || error.code == .clientCertificateRequired {
                return "refused: " + error.reason
            } catch {
                return "not decided: \(error)"
            }
        }

        /// Through a locally added root: the server's certificates known to this user (approvals
        /// for the host and port, the chains reviewed when its accounts were added) make another
        /// leaf an interception.
        static func markingInterception(_ evaluation: TrustEvaluation, leaf: Certificate?, at endpoint: Endpoint, known: KnownCertificates) -> TrustEvaluation {
            var leaves = Set(known.approvals.map(\.sha256))
            var from = known.approvals.isEmpty ? [] : ["approved for \(endpoint)"]
            for (account, sha256) in known.reviewed {
                leaves.insert(sha256)
                from.append("reviewed when account \(account) was added")
            }
            return evaluation.markingInterception(leaf: leaf, known: leaves, knownFrom: from.joined(separator: "; "))
        }

        /// The active approvals for the server, marked when one is for `leaf`; nil when there are none.
        static func approvals(_ known: KnownCertificates, leaf: Certificate?, refused: Bool) -> [InspectReport.Approval]? {
            let approvals = known.approvals.map {
                InspectReport.Approval(
                    id: $0.id, sha256: $0.sha256, approvedAt: $0.approvedAt.formatted(.iso8601), matches: $0.sha256 == leaf?.sha256Fingerprint,
                    honoured: $0.sha256 == leaf?.sha256Fingerprint && !refused)
            }
            return approvals.isEmpty ? nil : approvals
        }

        /// The accounts of the server whose certificate, reviewed when they were added, is another
        /// than `leaf`: a change to ask about before approving anything.
        static func accountsReviewedWithAnother(_ known: KnownCertificates, leaf: Certificate?) -> [String] {
            guard let leaf else { return [] }
            return known.reviewed.filter { $0.sha256 != leaf.sha256Fingerprint }.map(\.account).sorted()
        }

        /// After an untrusted verdict, the ways forward: the CA file that would make the chain
        /// trusted, or an approval after checking the fingerprint; or why neither can help
        /// (`refusals`: what ``ApprovalRule`` says no approval can make safe).
        func nextSteps(
            _ evaluation: TrustEvaluation, sent chain: [Certificate], refusals: [ApprovalRule.Refusal], approvals: [InspectReport.Approval]
        ) -> [String] {
            if !refusals.isEmpty {
                // Who can fix it: a status that could not be learnt is the way to the CA's
                // responders (a proxy, a firewall) or a staple the server could send, not the certificate.
                let unlearnt = refusals.allSatisfy { $0.code == .revocationUnknown }
                return [
                    "Nothing on this side can make it safe: " + refusals.map(\.message).joined(separator: " ")
                        + (unlearnt
                            ? " The answers must reach this machine: whoever runs the way to the CA's responders (a proxy or firewall that refuses them) can let them through, or the server's administrator can staple an OCSP answer to the handshake."
                            : " Only the server's administrator can fix it.")
                ]
            }
            if approvals.contains(where: \.honoured) { return [] }
            let target = url.map { [$0] } ?? files.flatMap { ["--file", $0] } + (host.map { ["--host", $0] } ?? [])
            var steps: [String] = []
            // A CA file helps only where trust in an issuer is what is missing (not an expired or
            // forged certificate), and another one only when none was given.
            let codes = Set(evaluation.verdict.reasons.map(\.code))
            let issuerMissing = !codes.isDisjoint(with: [.unknownIssuer, .untrustedRoot])
            if caFiles.isEmpty && (issuerMissing || codes.contains(.selfSigned)) {
                let inspect = SuggestedCommand.line(["vigil", "inspect"] + target + ["--ca-file", "CA.pem"])
                steps.append(
                    "If the server's certificate comes from your organisation's own CA: \(inspect) (account add takes the same --ca-file and remembers it).")
            } else if issuerMissing {
                steps.append(
                    "The CA file(s) given (\(caFiles.joined(separator: ", "))) do not vouch for this chain. If they should, the server presents a chain its CA did not issue (forged, or set up wrong): ask its administrator before trusting anything."
                )
            }
            if let leaf = chain.first, let where_ = url.map({ [$0] }) ?? host.map({ ["--file", files.first ?? "LEAF.pem", "--host", "\($0):PORT"] }) {
                let approve = SuggestedCommand.line(["vigil", "certificates", "approve"] + where_ + ["--fingerprint", leaf.sha256Fingerprint])
                steps.append(
                    "Or approve this very certificate, once its SHA-256 fingerprint is the one the server's administrator gives you through another channel: \(approve)"
                )
            }
            return steps
        }

        static func parseTime(_ text: String) -> Date? {
            if let date = try? Date(text, strategy: .iso8601) { return date }
            return try? Date.ISO8601FormatStyle().year().month().day().parse(text)
        }

        func run() async throws {
            EarlyWork.transfers()
            let (settings, logger) = try CommandContext.start(logOptions)
            do {
                let code = try await inspect(logger: logger, requirements: ConnectionRequirements(settings: settings), settings: settings)
                throw ExitCode(code)
            } catch {
                throw CommandFailure(error)
            }
        }

        func inspect(logger: Logger, requirements: ConnectionRequirements, settings: Settings) async throws -> Int32 {
            var configuration = caFiles.isEmpty ? TrustEvaluator.Configuration.system : .caFiles(caFiles)
            configuration.applyPolicyInputs(from: settings)
            configuration.time = at.flatMap(Self.parseTime)
            configuration.crlsPEM = try crlFiles.map(Self.crlPEM)
            if let profile = profile.flatMap(TrustProfile.init(rawValue:)) { configuration.profile = .forced(profile) }
            let evaluator = try TrustEvaluator(configuration: configuration)

            let chain: [Certificate]
            let target: InspectReport.Target
            var connection: InspectReport.Connection?
            var live: (handshake: TLSProbe.Handshake, endpoint: Endpoint)?
            if let url {
                let endpoint = try Endpoint(url: url)
                logger.privacy.info("Inspecting \(endpoint.description)", metadata: ["tags": "tls"])
                let probe = TLSProbe(
                    timeout: .milliseconds(Int64(timeout * 1000)), logger: logger, resolve: resolveOptions.pins, proxy: ProxyConfiguration(settings: settings))
                let handshake = try await probe.handshake(with: endpoint)
                chain = handshake.chain
                connection = .init(protocolVersion: handshake.protocolVersion, cipher: handshake.cipher, address: handshake.remoteAddress, via: handshake.via)
                if let asked = handshake.clientCertificate, asked.requested {
                    connection?.clientCertificate = handshake.clientCertificateOptional == false ? "required" : "optional"
                    connection?.acceptedIssuers = asked.acceptedIssuers
                    connection?.clientCertificateFinding = AccountSetup.clientCertificateInClear(handshake)
                }
                live = (handshake, endpoint)
                target = .init(kind: "host", url: endpoint.description, files: nil, peerName: endpoint.peerName)
            } else {
                chain = try files.flatMap { try Certificate.load(path: $0) }
                target = .init(kind: "files", url: nil, files: files, peerName: host.map { PeerName(host: $0) })
            }
            // A live server's whole connection is the verdict (ConnectionJudge): the handshake still
            // completes with an old protocol (to show what the server offers), but below the minimum
            // it is untrusted; revocation as connection.revocation-policy says. From files, the
            // chain alone, and revocation only from an OCSP response given.
            let given = try ocspResponse.map(Self.readFile)
            var evaluation: TrustEvaluation
            if let live {
                evaluation = await ConnectionJudge(evaluator: evaluator, requirements: requirements).verdict(
                    for: live.handshake, endpoint: live.endpoint, given: given)
            } else {
                evaluation = evaluator.evaluate(chain, for: target.peerName)
                if let given {
                    let report = RevocationReport.check(evaluation, sent: chain, staple: nil, given: given, policy: .off) { _ in [] }
                    evaluation = evaluation.requiring(revocation: report)
                }
            }
            // What the user's store knows of this server, read once (approvals, reviewed leaves).
            let known = if let live { await KnownCertificates.read(for: live.endpoint) } else { KnownCertificates() }
            if let live, evaluation.locallyAddedAnchor != nil {
                evaluation = Self.markingInterception(evaluation, leaf: chain.first, at: live.endpoint, known: known)
            }
            logger.privacy.notice(
                "Verdict for \(target.url ?? "files"): \(public: evaluation.verdict.isTrusted ? "trusted" : "untrusted")",
                metadata: [
                    "tags": "tls",
                    "leaf": .privateHashed(chain.first?.sha256Fingerprint ?? ""),
                    "reasons": .public(evaluation.verdict.reasons.map(\.code.rawValue).joined(separator: ",")),
                ])
            // --client-certificate: presented only to a server whose verdict is trusted, on a second
            // connection that accepts that very leaf; the first handshake never carries one.
            if let identity = try clientCertificateOptions.identity(), let live, let leaf = chain.first {
                // A verdict at another time (--at) says nothing about whom to show it to now.
                connection?.clientCertificatePresented =
                    at != nil
                    ? "not presented: --at judges another time than now"
                    : await Self.present(
                        identity, to: live.endpoint, leaf: leaf, trusted: evaluation.verdict.isTrusted, evaluator: evaluator, requirements: requirements,
                        logger: logger)
            }
            var report = InspectReport(target: target, evaluation: evaluation, sent: chain, connection: connection)
            let refusals = ApprovalRule.refusals(evaluation, sent: chain)
            if live != nil {
                report.approvals = Self.approvals(known, leaf: chain.first, refused: !refusals.isEmpty)
                report.storeUnreadable = known.unreadable.isEmpty ? nil : known.unreadable
            }
            if !evaluation.verdict.isTrusted {
                var steps = nextSteps(evaluation, sent: chain, refusals: refusals, approvals: report.approvals ?? [])
                // A certificate other than the one reviewed for an account here: that comes first.
                if live != nil, !steps.isEmpty {
                    let changed = Self.accountsReviewedWithAnother(known, leaf: chain.first)
                    if !changed.isEmpty {
                        steps.insert(
                            "First: this is not the certificate reviewed for account \(changed.joined(separator: ", ")) of this server. Ask the server's administrator why it changed before trusting or approving anything (\(SuggestedCommand.line(["vigil", "account", "check", changed[0]])) shows the change).",
                            at: 0)
                    }
                }
                report.nextSteps = steps.isEmpty ? nil : steps
            }
            if json {
                print(try report.json())
            } else {
                print(InspectTextRenderer(terminal: .standardOutput).render(report), terminator: "")
            }
            return evaluation.verdict.isTrusted ? ExitStatus.trusted : ExitStatus.untrusted
        }
    }
}
