import Foundation
import VigilSimulator
import VigilStore

/// An external client, judged by what reached the simulated hosts (its store, keyring and logs
/// are not the suite's to read), and by what it reached for outside its cell.
extension ScenarioJudge {

    /// Whether the server itself accepted a credential it knows (the right password, a token it
    /// issued) on a request that succeeded at a trusted host the user agreed to. A 2xx without an
    /// accepted credential is not a login.
    func provedLogin(_ evidence: ScenarioEvidence) -> Bool {
        evidence.journal.enumerated().contains { index, entry in
            entry.credentialAccepted && (200..<300).contains(entry.status) && !isHostile(entry, at: index, evidence) && isAgreed(entry, at: index, evidence)
        }
    }

    /// Whether the scenario's fault reached the client: a request answered by the fault (its
    /// behaviour, its OpenID Connect provider's faults), or a TLS connection to a host whose
    /// certificate or TLS versions are the fault. A scenario without a fault (the normal server)
    /// is always exercised.
    package func exercised(_ evidence: ScenarioEvidence) -> Bool {
        if evidence.journal.contains(where: { $0.fault == true }) { return true }
        let tls = evidence.connections.filter { $0.scheme == "https" }
        if scenario.tlsVersions != nil, !tls.isEmpty { return true }
        let faultHosts = Set((scenario.certificates ?? [:]).filter { $0.value != HostSimulatorCases.genuine(for: $0.key) }.keys)
        if tls.contains(where: { faultHosts.contains($0.host) || $0.mitm == true }) { return true }
        let hasFault =
            scenario.behaviour.kind != .normal || scenario.oidcFaults != nil || scenario.loginFlow != nil || scenario.tlsVersions != nil
            || !faultHosts.isEmpty || scenario.mitm == true
        return !hasFault
    }

    /// An external client's two scores in one scenario: whether it stayed safe (no violation),
    /// and whether it works: in a login scenario, it really logged in; in an error scenario, it
    /// met the fault and reported it. Nil for scenarios that ask only for safety (refuse, ask).
    package func works(_ evidence: ScenarioEvidence) -> ScenarioResult.Works? {
        switch scenario.outcome {
        case .login: return provedLogin(evidence) ? .yes : .no
        case .reportError:
            guard exercised(evidence) else { return .notExercised }
            return evidence.result.failureKind != nil ? .yes : .no
        case .refuse, .askCertificate, .askRedirect: return nil
        }
    }

    /// An external client's outcome: `login` (it says it worked, and the journal proves it),
    /// `report-error` (it says it failed), or `no-login` (it says it worked, the journal shows no
    /// request with its credentials that succeeded at the genuine host).
    package func gotByJournal(_ evidence: ScenarioEvidence) -> String {
        if evidence.result.failureKind != nil { return ClientOutcome.reportError.rawValue }
        return provedLogin(evidence) ? ClientOutcome.login.rawValue : "no-login"
    }

    /// An external client held to the scenario. Violations (never excused): any application
    /// data to a host whose certificate it was not entitled to trust, a credential over plain
    /// HTTP or at a host other than where it started (invariant 1). Then whether it works
    /// (``works(_:)``): a login scenario it did not really log in to, or an error scenario whose
    /// fault it met and called a success, is a failure. The other invariants concern Vigil's own
    /// log, files and keyring, which an external client does not use.
    package func judgeByJournal(_ evidence: ScenarioEvidence) -> (outcome: [String], invariants: ScenarioResult.Invariants, violations: [Violation]) {
        var invariants = ScenarioResult.Invariants()
        let transport =
            connectionFailures(evidence) + credentialFailures(evidence) + accessHeaderFailures(evidence) + faultLoginFailures(evidence)
            + proxyFailures(evidence)
        invariants.credentials = transport.isEmpty
        // Not checked, so not claimed: reports say so (JSON null, "credentials only").
        (invariants.logs, invariants.files, invariants.keyring) = (nil, nil, nil)
        let violations = transport + cellFailures(evidence)
        let got = gotByJournal(evidence)
        let said = evidence.result.message.map { " The client said: \(SuiteText.oneLine($0))" } ?? ""
        var outcome: [String] = []
        switch works(evidence) {
        case .no? where scenario.outcome == .login:
            outcome.append(
                "Expected login: the server accepted none of the client's credentials on a request that succeeded at the genuine host (got \(got)).\(said)")
        case .no?:
            outcome.append("Expected the client to report the error it met (the scenario's fault answered it); it says it succeeded.\(said)")
        default:
            break
        }
        return (outcome, invariants, violations)
    }

    /// What the client reached for outside its cell (``ClientCell``'s tripwires): whatever
    /// else it did, a client that tries to leave fails.
    func cellFailures(_ evidence: ScenarioEvidence) -> [Violation] {
        evidence.result.cellEscapes.map {
            Violation(.cellEscapeAttempt, "The client tried to leave its cell: it \($0); the cell refused it, and a client under test must not try.")
        }
    }
}
