// ScenarioRunner's evidence stage: what the client left (keyring, database, logs, files) read back for the judge.
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
    /// Waits until the simulated hosts have no open connection, at most `grace`; then cuts the
    /// rest. Returns how many were cut.
    static func settle(_ running: RunningHostSimulator, grace: Duration) async -> Int {
        let deadline = ContinuousClock.now + grace
        while running.simulator.journal.openConnections > 0, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
        // From here on the hosts take no new connection: what the journal holds is all there is.
        let cut = running.simulator.cutConnections(closingDoors: true)
        guard cut > 0 else { return 0 }
        // The cut connections' handlers complete their entries on their event loops.
        let closing = ContinuousClock.now + .seconds(1)
        while running.simulator.journal.openConnections > 0, ContinuousClock.now < closing { try? await Task.sleep(for: .milliseconds(10)) }
        return cut
    }

    /// Kinds of secret per keyring account whose server is one of `servers`.
    func keyringItems(for servers: [String]) async throws -> [String: [String]] {
        var items: [String: [String]] = [:]
        for account in try await secrets.accounts(kind: nil) where servers.contains(where: { Self.names(account, server: $0) }) {
            var kinds: [String] = []
            for kind in [SecretKey.Kind.password, .accessToken, .refreshToken, .clientSecret] {
                if try await secrets.secret(for: SecretKey(account: account, kind: kind)) != nil { kinds.append(kind.rawValue) }
            }
            items[account] = kinds
        }
        return items
    }

    /// `user@https://127.0.0.1:4431/path` names `https://127.0.0.1:4431`, not `https://127.0.0.1:443`.
    static func names(_ account: String, server: String) -> Bool {
        guard let range = account.range(of: "@" + server) else { return false }
        let rest = account[range.upperBound...]
        return rest.isEmpty || rest.hasPrefix("/")
    }

    /// Accounts and approvals (revoked ones included) in the scenario's database; a database that
    /// cannot be read is a problem, never zero.
    static func databaseCounts(_ path: String) async -> (accounts: Int, approvals: Int, problem: String?) {
        guard FileManager.default.fileExists(atPath: path) else { return (0, 0, nil) }
        do {
            let database = try await VigilDatabase.open(path: path)
            return (
                try await Accounts(database: database).list().count, try await CertificateApprovals(database: database).list(includingRevoked: true).count, nil
            )
        } catch {
            return (0, 0, "\(error)")
        }
    }

    /// Vigil's logger at trace level with HTTP logging on and privacy masking off (the strictest
    /// setting for invariant 2: a secret must never reach a log line, masked by default or not),
    /// writing to `file` only.
    static func traceLogger(file: String, hashKey: String) -> Logger {
        var configuration = LogConfiguration()
        configuration.level = .trace
        configuration.logHTTPRequests = true
        configuration.privacyMask = false
        let sinks: [any LogSink] = [RotatingFileSink(path: file, minimumLevel: .trace)]
        let hasher = LogHasher.persistent(at: hashKey)
        var logger = Logger(label: "vigil") { label in configuration.handler(label: label, sinks: sinks, hasher: hasher) }
        logger.logLevel = .trace
        return logger
    }

    static func lines(ofFiles files: [String]) -> [(file: String, line: String)] {
        files.flatMap { file -> [(file: String, line: String)] in
            guard let data = FileManager.default.contents(atPath: file) else { return [] }
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map { (file, String($0)) }
        }
    }

    /// Every regular file under `root` holding one of the secrets, as bytes anywhere in it.
    static func files(under root: String, containing secrets: [PlantedSecret]) -> [(file: String, what: String)] {
        var found: [(file: String, what: String)] = []
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        while let relative = walker.nextObject() as? String {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let data = FileManager.default.contents(atPath: path)
            else { continue }
            for secret in secrets where secret.value.count >= 6 && data.range(of: Data(secret.value.utf8)) != nil {
                found.append((relative, secret.what))
            }
        }
        return found
    }

    static func relative(_ path: String, to root: String) -> String {
        path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }
}
