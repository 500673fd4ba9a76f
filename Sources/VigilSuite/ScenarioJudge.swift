import Foundation
import VigilStore
public import VigilSimulator

/// Holds a scenario's evidence to its fixture: the outcome exactly, then the four invariants.
/// Pure: the same evidence gives the same verdict.
public struct ScenarioJudge: Sendable {
    public let scenario: Scenario

    public init(scenario: Scenario) { self.scenario = scenario }

    /// The outcome text the fixture expects: `ask-certificate`, or `ask-certificate → login` when
    /// the user approves and the client must then reach `login`.
    public var expected: String {
        guard let then = scenario.client?.then, scenario.outcome.rawValue.hasPrefix("ask-") else { return scenario.outcome.rawValue }
        return "\(scenario.outcome.rawValue) → \(then.rawValue)"
    }

    /// How the client ended, ignoring the questions the user approved.
    public static func finalOutcome(_ evidence: ScenarioEvidence) -> ClientOutcome {
        if evidence.result.account != nil { return .login }
        if let last = evidence.questions.last, !last.approved {
            return last.question == .certificate ? .askCertificate : .askRedirect
        }
        switch evidence.result.failureKind {
        case .refused?: return .refuse
        case .notImplemented?: return .notImplemented
        case .error?, nil: return .reportError
        }
    }

    /// What the client did, in the form of ``expected``.
    public func got(_ evidence: ScenarioEvidence) -> String {
        let final = Self.finalOutcome(evidence)
        if scenario.outcome.rawValue.hasPrefix("ask-"), let asked = firstAsked(evidence), asked.approved {
            return "ask-\(asked.question.rawValue) → \(final.rawValue)"
        }
        return final.rawValue
    }

    func firstAsked(_ evidence: ScenarioEvidence) -> ScriptedUser.Asked? {
        let wanted: ScenarioClient.Question = scenario.outcome == .askRedirect ? .redirect : .certificate
        return evidence.questions.first { $0.question == wanted }
    }

    /// The outcome's failures (empty when reached), then the invariants'.
    public func judge(_ evidence: ScenarioEvidence) -> (outcome: [String], invariants: ScenarioResult.Invariants, violations: [String]) {
        var invariants = ScenarioResult.Invariants()
        let credentialViolations = credentialFailures(evidence)
        invariants.credentials = credentialViolations.isEmpty
        let logViolations = logFailures(evidence)
        invariants.logs = logViolations.isEmpty
        let fileViolations = evidence.filesWithSecrets.map { "\($0.file) contains \($0.what) (invariant 3: no secret in a file)" }
        invariants.files = fileViolations.isEmpty
        let keyringViolations = keyringFailures(evidence)
        invariants.keyring = keyringViolations.isEmpty
        return (outcomeFailures(evidence), invariants, credentialViolations + logViolations + fileViolations + keyringViolations)
    }

    // MARK: - Outcome

    func outcomeFailures(_ evidence: ScenarioEvidence) -> [String] {
        let final = Self.finalOutcome(evidence)
        let said = evidence.result.message.map { " The client said: \(Self.oneLine($0))" } ?? ""
        var failures: [String] = []
        let approvals = Set(scenario.client?.approve ?? [])
        switch scenario.outcome {
        case .askCertificate, .askRedirect:
            let question: ScenarioClient.Question = scenario.outcome == .askCertificate ? .certificate : .redirect
            guard let asked = firstAsked(evidence) else {
                return ["Expected the client to stop and ask the user to approve the \(question.rawValue); it did not ask, and ended with \(final.rawValue).\(said)"]
            }
            if approvals.contains(question) {
                let then = scenario.client?.then.map(ClientOutcome.init) ?? .login
                if !asked.approved {
                    failures.append("The user approved the \(question.rawValue) of \(asked.about), but the approval did not match what the host serves (fingerprint).")
                } else if final != then {
                    failures.append("After the user approved the \(question.rawValue) of \(asked.about), expected \(then.rawValue), got \(final.rawValue).\(said)")
                } else {
                    failures += successFailures(final, evidence)
                }
            } else if final != ClientOutcome(scenario.outcome) {
                failures.append("Expected the client to stop at the \(question.rawValue) question, declined; it ended with \(final.rawValue).\(said)")
            } else {
                failures += sentAfterDecline(asked, evidence)
            }
        case .refuse, .reportError, .login:
            let wanted = ClientOutcome(scenario.outcome)
            if final != wanted {
                let asked = evidence.questions.last.map { " (it asked about the \($0.question.rawValue) of \($0.about))" } ?? ""
                failures.append("Expected \(wanted.rawValue), got \(final.rawValue)\(asked).\(said)")
            } else {
                failures += successFailures(final, evidence)
            }
        }
        return failures
    }

    /// The extra conditions of an outcome reached: `login` proved by a request with credentials
    /// that succeeded; `report-error` with a message and nothing saved.
    func successFailures(_ final: ClientOutcome, _ evidence: ScenarioEvidence) -> [String] {
        switch final {
        case .login:
            let proved = evidence.journal.contains { $0.carriesCredential && (200..<300).contains($0.status) && !isHostile($0, evidence) }
            return proved ? [] : ["The account was added, but the journal shows no request with its credentials that succeeded at a trusted host."]
        case .reportError:
            var failures: [String] = []
            if (evidence.result.message ?? "").trimmingCharacters(in: .whitespaces).isEmpty { failures.append("The client reported no message for the error.") }
            if evidence.accountsLeft > 0 { failures.append("The client reported an error but saved an account.") }
            return failures
        default:
            return []
        }
    }

    /// Declining must send nothing more: no request at the declined certificate's host, no
    /// request at the declined redirect's target, no credential anywhere.
    func sentAfterDecline(_ asked: ScriptedUser.Asked, _ evidence: ScenarioEvidence) -> [String] {
        var failures: [String] = []
        let named = Self.host(of: asked.about)
        let address = evidence.addresses[named] ?? named
        let port = asked.about.split(separator: ":").last.map(String.init) ?? ""
        let listener = evidence.listeners.first { $0.address == address && String($0.port) == port }
        if asked.question == .certificate {
            let sent = evidence.journal.filter { $0.host == address && ($0.scheme ?? "https") == (listener?.scheme ?? "https") }
            if let first = sent.first {
                failures.append("The user declined the certificate of \(asked.about), yet \(sent.count) request(s) reached it (first: \(first.method) \(first.path)).")
            }
        } else if let target = listener, target.address != evidence.listeners.first?.address {
            let sent = evidence.journal.filter { $0.host == target.address }
            if let first = sent.first {
                failures.append("The user declined the redirect to \(asked.about), yet \(sent.count) request(s) reached it (first: \(first.method) \(first.path)).")
            }
        }
        if let leaked = evidence.journal.first(where: \.carriesCredential) {
            failures.append("The user declined, yet a credential was sent: \(leaked.method) \(leaked.path) at \(leaked.host).")
        }
        return failures
    }

    // MARK: - Invariants

    /// Invariant 1: no credential at a host whose certificate was neither trusted nor approved,
    /// none over plain HTTP.
    func credentialFailures(_ evidence: ScenarioEvidence) -> [String] {
        evidence.journal.filter { $0.carriesCredential && isHostile($0, evidence) }.map { entry in
            "A credential reached \(describe(entry)) with \(entry.method) \(entry.path) (invariant 1: credentials only to trusted or approved hosts, never over plain HTTP)."
        }
    }

    /// Plain HTTP; a man in the middle not approved; a host serving a certificate that is not its
    /// genuine one (nor accepted by the fixture), not approved.
    func isHostile(_ entry: JournalEntry, _ evidence: ScenarioEvidence) -> Bool {
        if entry.scheme == "http" { return true }
        let approved = evidence.approvedCertificates.contains { (evidence.addresses[Self.host(of: $0)] ?? Self.host(of: $0)) == entry.host }
        let genuineBehindProxy = scenario.mitm == true && entry.mitm != true
        if genuineBehindProxy { return false }
        if entry.mitm == true { return !approved }
        let served = certificateCase(at: entry.host)
        let accepted = served == HostSimulatorCases.genuine(for: entry.host) || (scenario.client?.acceptedCertificates ?? []).contains(served)
        return !(accepted || approved)
    }

    func certificateCase(at address: String) -> String {
        scenario.certificates?[address] ?? HostSimulatorCases.genuine(for: address)
    }

    func describe(_ entry: JournalEntry) -> String {
        if entry.scheme == "http" { return "\(entry.host) over plain HTTP" }
        if entry.mitm == true { return "the man in the middle at \(entry.host) (certificate \(certificateCase(at: entry.host)))" }
        return "\(entry.host), whose certificate \(certificateCase(at: entry.host)) was neither trusted nor approved"
    }

    /// Invariant 2: no planted secret in a log line or a message shown.
    func logFailures(_ evidence: ScenarioEvidence) -> [String] {
        var failures: [String] = []
        for secret in evidence.plantedSecrets where secret.value.count >= 6 {
            if let hit = evidence.logLines.first(where: { $0.line.contains(secret.value) }) {
                failures.append("\(hit.source) has a line with \(secret.what) (invariant 2: no secret in a log line).")
            }
        }
        return failures
    }

    /// Invariant 4: after setup the keyring holds exactly the method's secrets for this account
    /// (none when no account was added); after the removal, none.
    func keyringFailures(_ evidence: ScenarioEvidence) -> [String] {
        var failures: [String] = []
        if let account = evidence.result.account {
            let expected = Self.secretKinds(method: account.method)
            let held = evidence.keyringAfterAdd[account.secretAccount].map(Set.init) ?? []
            if held != expected {
                failures.append("After setup the keyring held \(Self.list(held)) for \(account.secretAccount); expected \(Self.list(expected)) (invariant 4).")
            }
            for (other, kinds) in evidence.keyringAfterAdd.sorted(by: { $0.key < $1.key }) where other != account.secretAccount {
                failures.append("After setup the keyring held \(Self.list(Set(kinds))) for \(other), which is not the account added (invariant 4).")
            }
            if let error = evidence.removalError { failures.append("Removing the account failed: \(error) (invariant 4).") }
            for (other, kinds) in evidence.keyringAfterRemoval.sorted(by: { $0.key < $1.key }) {
                failures.append("After the account was removed the keyring still held \(Self.list(Set(kinds))) for \(other) (invariant 4).")
            }
            if evidence.accountsLeft > 0 { failures.append("After the account was removed, \(evidence.accountsLeft) account(s) remained in the database.") }
        } else {
            for (other, kinds) in evidence.keyringAfterAdd.sorted(by: { $0.key < $1.key }) {
                failures.append("No account was added, yet the keyring held \(Self.list(Set(kinds))) for \(other) (invariant 4).")
            }
        }
        return failures
    }

    /// The secrets an account of this method keeps.
    static func secretKinds(method: String) -> Set<String> {
        method == "com.owncloud.basicauth" ? ["password"] : ["access-token", "refresh-token"]
    }

    static func list(_ kinds: Set<String>) -> String { kinds.isEmpty ? "nothing" : kinds.sorted().joined(separator: ", ") }

    /// The host of `host:port` (IPv6 literals keep their colons).
    static func host(of hostPort: String) -> String {
        guard let colon = hostPort.lastIndex(of: ":") else { return hostPort }
        return String(hostPort[..<colon])
    }

    static func oneLine(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) }).prefix(300).description
    }
}

/// The simulator's naming of genuine certificates (`valid-<address>`), restated here so that the
/// suite's judgement does not depend on the simulator's internals.
enum HostSimulatorCases {
    static func genuine(for address: String) -> String { address == "::1" ? "valid-ipv6" : "valid-\(address)" }
}
