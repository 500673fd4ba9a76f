// ScenarioRunner's play stage: the client driven by the fixture's script (its answers, approvals and the user's settings).
import Foundation
import Logging
import VigilAccounts
import VigilCertificates
import VigilHTTP
import VigilLogging
import VigilSecrets
import VigilSettings
import VigilSimulator
import VigilStore
import VigilThreads

extension ScenarioRunner {
    func drive(
        _ running: RunningHostSimulator, settings: Settings, data: String, config: String, state: String, resolver: String? = nil,
        phase: SuiteClientContext.Phase = .only
    ) async throws -> ScenarioEvidence {
        let users = scenario.effectiveUsers
        let userName = scenario.client?.user ?? users.keys.sorted().first ?? "alice"
        let caFile = (certificatesDirectory as NSString).appendingPathComponent("ca-bundle.pem")
        let timeout = scenario.client?.timeout.map { Duration.milliseconds(Int64($0 * 1000)) } ?? self.timeout
        let resolve = Self.resolutions(scenario, running)
        var leaves = try servedLeaves(running)
        for pin in resolve { leaves["\(pin.host):\(pin.port)"] = leaves["\(pin.address):\(pin.port)"] }
        let journal = running.simulator.journal
        let user = ScriptedUser(
            approve: Set(scenario.client?.approve ?? []), password: users[userName], servedLeaves: leaves,
            caFile: caFile, browserTimeout: max(2, Int(timeout.components.seconds) * 2), resolve: resolve.map(\.description),
            journalPosition: { journal.entries.count }, connectionPosition: { journal.connectionCount })
        let logFile = state + "/vigil/logs/vigil.log"
        // In the suite's network namespace a host's name reaches it on port 443 (ClientNetwork).
        let server = Self.expand(running.resolve(scenario.client?.start ?? "{https:1}"), resolve, usualPort: resolver != nil)
        let trusted = try (scenario.client?.trust ?? ["ca-bundle"]).map { name in
            let path = (certificatesDirectory as NSString).appendingPathComponent("\(name).pem")
            guard FileManager.default.fileExists(atPath: path) else {
                throw SuiteError(.invalidFixture, "\(scenario.name): client.trust names \(name), and \(path) does not exist.")
            }
            return path
        }
        var context = SuiteClientContext(
            server: server, userName: userName, user: user, settings: settings, caFile: caFile, trustedCAFiles: trusted,
            databasePath: data + "/vigil/vigil.sqlite", dataDirectory: data, configDirectory: config, stateDirectory: state,
            secrets: secrets, logger: Self.traceLogger(file: logFile, hashKey: state + "/vigil/log-hash.key"), timeout: timeout, resolve: resolve,
            settle: { grace in await Self.settle(running, grace: grace) })
        if let resolver, let network { context.resolver = (resolver, network.resolverTarget) }
        context.phase = phase
        // Certificates the user or the administrator approved, told to an external client the one
        // way every client reads: added to its CA file.
        // The CA files alone (for the entitlement check), then the approvals added for the client.
        let caBundleWithoutApprovals = context.trustedCABundle
        let approvedFile = client.judgesByJournal ? try approvedLeaves(directory: state) : nil
        let approvedFingerprints = Set(((approvedFile.map { try? Certificate.load(path: $0) } ?? nil) ?? []).map(\.sha256Fingerprint))
        if let approvedFile { context.trustedCAFiles.append(approvedFile) }
        if let names = scenario.client?.systemTrust {
            context.systemStoreFiles = try names.map { name in
                let path = (certificatesDirectory as NSString).appendingPathComponent("\(name).pem")
                guard FileManager.default.fileExists(atPath: path) else {
                    throw SuiteError(.invalidFixture, "\(scenario.name): client.systemTrust names \(name), and \(path) does not exist.")
                }
                return path
            }
        }
        if let name = scenario.client?.clientCertificate {
            let directory = certificatesDirectory as NSString
            context.clientCertificate = (directory.appendingPathComponent("\(name).pem"), directory.appendingPathComponent("\(name).key"))
            context.user.browserCertificate = context.clientCertificate
        }
        if scenario.client?.accessHeaders == true {
            let fields = scenario.behaviours.flatMap { ($0.headers ?? [:]).sorted { $0.key < $1.key } }
            context.accessHeaders = fields.map { "\($0.key): \($0.value)\n" }.joined()
        }
        try FileManager.default.createDirectory(atPath: data + "/vigil", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])

        // A proxy password kept before the scenario (`vigil proxy login`), as the fixture says.
        var keptProxy: ProxyIdentity?
        if let login = scenario.client?.proxyLogin {
            let passwords = running.simulator.responder.proxyPasswords
            guard let url = running.simulator.proxyURLs[login.proxy], let identity = ProxyIdentity(url: url), passwords.indices.contains(login.proxy - 1)
            else {
                throw SuiteError(.invalidFixture, "\(scenario.name): client.proxyLogin names proxy \(login.proxy), which the scenario does not have.")
            }
            let secrets = self.secrets
            try await BlockingQueue.keyring.run {
                try ProxyCredentials(secrets: secrets).store(
                    ProxyCredential(user: ProxyPlan.user, password: passwords[login.proxy - 1], allowsClearText: login.allowClearText == true), for: identity)
            }
            keptProxy = identity
        }
        var existing: (account: Account, approvals: Int)?
        let forgetProxy = { [secrets] in
            if let keptProxy { _ = try? await BlockingQueue.keyring.run { try ProxyCredentials(secrets: secrets).remove(keptProxy) } }
        }
        if let premise = scenario.client?.account, !client.judgesByJournal {
            do {
                existing = try await seed(premise, server: server, user: userName, password: users[userName], running: running, context: context)
            } catch {
                await forgetProxy()
                throw error
            }
        }
        let result = if let existing { await client.useAccount(existing.account, context: context) } else { await client.addAccount(context) }
        let servers = running.listeners.map(\.url) + resolve.map { "https://\($0.host):\($0.port)" }
        let keyringAfterAdd = try await keyringItems(for: servers)
        var keyringAfterRemoval: [String: [String]] = [:]
        var removalError: String?
        if let account = result.account ?? existing?.account {
            do { try await client.removeAccount(account, context: context) } catch { removalError = "\(error)" }
            keyringAfterRemoval = try await keyringItems(for: servers)
        } else if !keyringAfterAdd.isEmpty {
            // Clean up what a failed client left, so that the next run starts from an empty keyring.
            for (account, kinds) in keyringAfterAdd {
                for kind in kinds { _ = try? await secrets.remove(SecretKey(account: account, kind: .init(rawValue: kind))) }
            }
        }
        // The kept proxy password goes last: the account's removal may go through the proxy too.
        await forgetProxy()
        let counts = await Self.databaseCounts(context.databasePath)
        // Approvals a renewal rule carried over: read from the database, not from the client, and
        // only for the leaf host 1 really serves, with the rule's note.
        let hostOne = running.listeners.first { $0.host == 1 && $0.scheme == "https" }.map { "\($0.address):\($0.port)" }
        var byRule = 0
        if existing != nil, let database = try? await VigilDatabase.open(path: context.databasePath),
            let approvals = try? await CertificateApprovals(database: database).list(includingRevoked: true)
        {
            byRule = approvals.filter { approval in approval.note?.hasPrefix("renewal of ") == true && hostOne.map { leaves[$0] } == approval.sha256 }.count
        }
        // Judged only when nothing can reach the hosts any more.
        _ = await Self.settle(running, grace: .seconds(2))
        let entries = journal.entries
        if entries.count >= Self.journalLimit / 2 {
            throw SuiteError(.invalidFixture, "\(scenario.name): the client made over \(Self.journalLimit / 2) requests; the journal cannot keep them all.")
        }
        let addresses = Dictionary(resolve.map { ($0.host, $0.address) }, uniquingKeysWith: { first, _ in first })
        let startURL = URLComponents(string: server)
        let startHost = (startURL?.host ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let planted = running.simulator.responder.plantedSecrets()
        var logLines = Self.lines(ofFiles: RotatingFileSink.files(for: logFile)).map {
            (source: "the log (\(Self.relative($0.file, to: directory)))", line: $0.line)
        }
        logLines += user.shown.map { (source: "a message shown to the user", line: $0) }
        var evidence = ScenarioEvidence(
            result: result, questions: user.questions, journal: entries, connections: journal.connections,
            listeners: running.listeners, keyringAfterAdd: keyringAfterAdd, keyringAfterRemoval: keyringAfterRemoval,
            accountsLeft: counts.accounts, approvalsLeft: counts.approvals, removalError: removalError, logLines: logLines,
            filesWithSecrets: Self.files(under: directory, containing: planted), plantedSecrets: planted,
            addresses: addresses, start: (startURL?.scheme?.lowercased() ?? "https", addresses[startHost] ?? startHost),
            interceptedAddress: scenario.mitm == true ? running.listeners.first { $0.host == 1 && $0.scheme == "https" }?.address : nil,
            databaseProblem: counts.problem, existingAccount: existing?.account, approvalsSeeded: existing?.approvals ?? 0, approvalsByRule: byRule,
            entitled: client.judgesByJournal
                ? entitledCertificates(running, bundle: caBundleWithoutApprovals, approved: (approvedFile, approvedFingerprints)) : [],
            proxyEntries: running.simulator.proxyEntries)
        evidence.refreshTokenReuses = running.simulator.responder.oidc.refreshTokenReuses
        return evidence
    }
}
