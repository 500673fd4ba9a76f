import Foundation
package import VigilSimulator
import VigilStore

/// Holds a scenario's evidence to its fixture: the outcome exactly, then the invariants. Pure:
/// the same evidence gives the same verdict.
///
/// Only an outcome missed can be a known gap. Everything that concerns what left the machine or
/// what was saved is a violation, which no known gap covers: a credential at an untrusted host or
/// over plain HTTP (invariant 1), a request to a server the user never agreed to, anything sent
/// after the user declined, trust or an account saved without the user's consent, a secret in a
/// log line or a file (2, 3), the keyring not exactly as expected (4).
package struct ScenarioJudge: Sendable {
    /// The scenario whose fixture the evidence is held to.
    package let scenario: Scenario

    /// A judge for `scenario`.
    package init(scenario: Scenario) { self.scenario = scenario }

    /// The outcome text the fixture expects: `ask-certificate`, or `ask-certificate → login` when
    /// the user approves and the client must then reach `login`.
    package var expected: String {
        guard let then = scenario.client?.then, scenario.outcome.rawValue.hasPrefix("ask-") else { return scenario.outcome.rawValue }
        return "\(scenario.outcome.rawValue) → \(then.rawValue)"
    }

    /// How the client ended, ignoring the questions the user approved.
    package static func finalOutcome(_ evidence: ScenarioEvidence) -> ClientOutcome {
        if evidence.result.account != nil { return .login }
        // A declined `credentials` question does not end setup (it goes on without them).
        if let last = evidence.questions.last(where: { $0.question != .credentials }), !last.approved {
            return last.question == .certificate ? .askCertificate : .askRedirect
        }
        switch evidence.result.failureKind {
        case .refused?: return .refuse
        case .notImplemented?: return .notImplemented
        case .error?, nil: return .reportError
        }
    }

    /// What the client did, in the form of ``expected``.
    package func got(_ evidence: ScenarioEvidence) -> String {
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

    /// The outcome's failures (empty when reached), the invariants, and every violation.
    package func judge(_ evidence: ScenarioEvidence) -> (outcome: [String], invariants: ScenarioResult.Invariants, violations: [Violation]) {
        var invariants = ScenarioResult.Invariants()
        let credentialViolations =
            connectionFailures(evidence) + credentialFailures(evidence) + accessHeaderFailures(evidence) + faultLoginFailures(evidence)
            + proxyFailures(evidence) + cellFailures(evidence)
        invariants.credentials = credentialViolations.isEmpty
        let logViolations = logFailures(evidence)
        invariants.logs = logViolations.isEmpty
        let fileViolations = evidence.filesWithSecrets.map { Violation(.secretInFile, "\($0.file) contains \($0.what) (invariant 3: no secret in a file).") }
        invariants.files = fileViolations.isEmpty
        let keyringViolations = keyringFailures(evidence)
        invariants.keyring = keyringViolations.isEmpty
        let conduct = destinationFailures(evidence) + declineFailures(evidence) + savedFailures(evidence) + proofFailures(evidence)
        return (outcomeFailures(evidence), invariants, credentialViolations + conduct + logViolations + fileViolations + keyringViolations)
    }

    // MARK: - Outcome

    func outcomeFailures(_ evidence: ScenarioEvidence) -> [String] {
        let final = Self.finalOutcome(evidence)
        let said = evidence.result.message.map { " The client said: \(SuiteText.oneLine($0))" } ?? ""
        let approvals = Set(scenario.client?.approve ?? [])
        switch scenario.outcome {
        case .askCertificate, .askRedirect:
            let question: ScenarioClient.Question = scenario.outcome == .askCertificate ? .certificate : .redirect
            guard let asked = firstAsked(evidence) else {
                return [
                    "Expected the client to stop and ask the user to approve the \(question.rawValue); it did not ask, and ended with \(final.rawValue).\(said)"
                ]
            }
            if approvals.contains(question) {
                let then = scenario.client?.then.map(ClientOutcome.init) ?? .login
                if !asked.approved {
                    return [
                        "The user would approve the \(question.rawValue) of \(asked.about), but what was presented is not what the host serves (fingerprint)."
                    ]
                }
                return final == then
                    ? [] : ["After the user approved the \(question.rawValue) of \(asked.about), expected \(then.rawValue), got \(final.rawValue).\(said)"]
            }
            return final == ClientOutcome(scenario.outcome)
                ? [] : ["Expected the client to stop at the \(question.rawValue) question, declined; it ended with \(final.rawValue).\(said)"]
        case .refuse, .reportError, .login:
            let wanted = ClientOutcome(scenario.outcome)
            guard final != wanted else { return [] }
            let asked = evidence.questions.last.map { " (it asked about the \($0.question.rawValue) of \($0.about))" } ?? ""
            return ["Expected \(wanted.rawValue), got \(final.rawValue)\(asked).\(said)"]
        }
    }

    // MARK: - Conduct (violations, never covered by a known gap)

    /// `login` must be proved by the journal: a request with the account's credentials that
    /// succeeded at a trusted host the user agreed to.
    func proofFailures(_ evidence: ScenarioEvidence) -> [Violation] {
        guard evidence.result.account != nil else { return [] }
        return provedLogin(evidence)
            ? []
            : [
                Violation(
                    .loginNotProved,
                    "The client says the account was added, but the server accepted none of its credentials on a request that succeeded at a trusted host.")
            ]
    }

    /// Nothing saved without the user's consent: no account unless the client logged in (and none
    /// left after the removal), no certificate approval the user did not give.
    func savedFailures(_ evidence: ScenarioEvidence) -> [Violation] {
        var failures: [Violation] = []
        if let problem = evidence.databaseProblem { failures.append(Violation(.databaseUnreadable, "The scenario's database cannot be read: \(problem).")) }
        if evidence.result.account == nil, evidence.accountsLeft > 0 {
            failures.append(Violation(.savedWithoutConsent, "The client did not log in, yet saved \(evidence.accountsLeft) account(s)."))
        }
        let given = evidence.questions.filter { $0.question == .certificate && $0.approved }.count
        let allowed = given + evidence.approvalsSeeded + evidence.approvalsByRule
        if evidence.approvalsLeft > allowed {
            failures.append(
                Violation(
                    .savedWithoutConsent,
                    "The database holds \(evidence.approvalsLeft) certificate approval(s); the user gave \(given)"
                        + (allowed > given ? ", and \(allowed - given) came with the account or its renewal." : ".")))
        }
        if evidence.result.failureKind == .error, (evidence.result.message ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
            failures.append(Violation(.silentError, "The client reported an error without a message."))
        }
        return failures
    }

    /// After a declined certificate, not one request at that server.
    func declineFailures(_ evidence: ScenarioEvidence) -> [Violation] {
        var failures: [Violation] = []
        for asked in evidence.questions where asked.question == .certificate && !asked.approved {
            let address = evidence.address(of: asked.about)
            let sent = evidence.journal.dropFirst(asked.at).filter { $0.host == address && ($0.scheme ?? "https") == "https" }
            if let first = sent.first {
                failures.append(
                    Violation(
                        .requestAfterDecline,
                        "The user declined the certificate of \(asked.about), yet \(sent.count) request(s) reached it afterwards (first: \(first.method) \(first.path))."
                    ))
            }
        }
        return failures
    }

    /// Requests only to the server setup started at and to redirect targets the user approved
    /// (before the request): no plain-HTTP detour, no other host.
    func destinationFailures(_ evidence: ScenarioEvidence) -> [Violation] {
        var failures: [Violation] = []
        for (index, entry) in evidence.journal.enumerated() where !isAgreed(entry, at: index, evidence) {
            failures.append(
                Violation(
                    .requestToUnagreedHost,
                    "A request reached \(entry.scheme ?? "https")://\(entry.host) (\(entry.method) \(entry.path)), a server the user never agreed to: not where setup started, not an approved redirect."
                ))
            if failures.count == 3 { break }
        }
        return failures
    }

    /// The request went to the start server, or to a redirect target approved before it.
    func isAgreed(_ entry: JournalEntry, at index: Int, _ evidence: ScenarioEvidence) -> Bool {
        let scheme = entry.scheme ?? "https"
        if scheme == evidence.start.scheme && entry.host == evidence.start.address { return true }
        // The https server where a client started on plain HTTP is never less safe than the start.
        if scheme == "https", evidence.start.scheme == "http", entry.host == evidence.start.address { return true }
        // The login provider the server names on another host (the deployment's identity
        // provider): agreed with the server, for its provider endpoints only (discovery, the
        // OAuth2 endpoints), never as a server for files, and never for the user's password
        // (a code, a verifier, a refresh token may go there; the password is the server's).
        // The scenario's proxy auto-config file, where the administrator's setting names it: a
        // GET of `/proxy.pac` and nothing else, with no credential.
        if scenario.proxy?.pac != nil, scheme == "http", entry.method == "GET", entry.path == "/proxy.pac", entry.credential != true,
            entry.host == evidence.listeners.first(where: { $0.host == 1 && $0.scheme == "http" })?.address
        {
            return true
        }
        if scheme == "https", entry.password != true, let provider = scenario.oidcFaults?.providerHost,
            entry.host == evidence.listeners.first(where: { $0.host == provider && $0.scheme == "https" })?.address,
            entry.path.hasPrefix("/.well-known/") || entry.path.hasPrefix("/index.php/apps/oauth2/")
        {
            return true
        }
        return evidence.questions.contains {
            $0.question == .redirect && $0.approved && $0.at <= index && $0.scheme == scheme && evidence.address(of: $0.about) == entry.host
        }
    }

    // MARK: - Invariants

    /// Invariant 1: no credential at a host whose certificate was neither trusted nor approved
    /// (at the time), none over plain HTTP, none at a server the user never agreed to.
    /// An access proxy's service token belongs to the origin the user gave it for: sent to any
    /// other host (a redirect target, even an approved one; a login provider) it is a violation,
    /// unless the user agreed to present it there (after the question, over https).
    func accessHeaderFailures(_ evidence: ScenarioEvidence) -> [Violation] {
        let agreed = evidence.questions.filter { $0.question == .credentials && $0.approved }
        return evidence.journal.enumerated().filter { index, entry in
            guard entry.accessHeaders != nil else { return false }
            guard (entry.scheme ?? "https") == "https" else { return true }
            if entry.host == evidence.start.address { return false }
            return !agreed.contains { evidence.address(of: $0.about) == entry.host && $0.at <= index }
        }.map(\.element).prefix(3).map {
            Violation(
                .accessHeadersElsewhere,
                "The access headers (\(($0.accessHeaders ?? []).joined(separator: ", "))) reached \($0.scheme ?? "https")://\($0.host) with \($0.method) \($0.path): they belong to the origin they were given for, and to no other host (invariant 1)."
            )
        }
    }

    func credentialFailures(_ evidence: ScenarioEvidence) -> [Violation] {
        let all = evidence.journal.enumerated().compactMap { index, entry -> Violation? in
            guard entry.carriesCredential else { return nil }
            let where_: String
            let code: Violation.Code
            if isHostile(entry, at: index, evidence) {
                where_ = describe(entry)
                code = entry.scheme == "http" ? .clearTextCredential : .credentialToUntrusted
            } else if !isAgreed(entry, at: index, evidence) {
                where_ = "\(entry.scheme ?? "https")://\(entry.host), a host the user never agreed to (not where it started, not an approved redirect),"
                code = .credentialToUnagreedHost
            } else {
                return nil
            }
            return Violation(
                code,
                "A credential (\(Self.credential(in: entry))) reached \(where_) with \(entry.method) \(entry.path) (invariant 1: credentials only to trusted or approved hosts the user agreed to, never over plain HTTP)."
            )
        }
        guard all.count > 3 else { return all }
        return Array(all.prefix(3)) + [Violation(all[3].code, "... and \(all.count - 3) more request(s) with a credential where none belonged.")]
    }

    /// Invariant 1 at the proxies (issue 33). A proxy credential is disclosed when it reaches a
    /// proxy before that proxy asked (no 407 from it before: pre-emptive, or a proxy that never
    /// asks), when it is another proxy's password, when it shows the password (Basic) to a plain
    /// proxy without the user's consent for that proxy, or when any planted secret reaches a proxy
    /// outside Proxy-Authorization (or a user's secret inside it). A proxy's password reaching any
    /// simulated host is disclosed too. Where the fixture says every connection goes through a
    /// proxy (`proxy.through`), a connection to a host that did not come through its tunnels went
    /// around it.
    func proxyFailures(_ evidence: ScenarioEvidence) -> [Violation] {
        var failures: [Violation] = []
        var asked: Set<Int> = []
        let login = scenario.client?.proxyLogin
        for entry in evidence.proxyEntries {
            let what = "\(entry.method) \(SuiteText.oneLine(String(entry.target.prefix(60))))"
            if entry.secretElsewhere {
                failures.append(
                    Violation(
                        .credentialToProxy,
                        "A credential reached proxy \(entry.proxy) (\(what)) outside its own Proxy-Authorization: disclosed (invariant 1)."))
            }
            if let scheme = entry.scheme {
                if !asked.contains(entry.proxy) {
                    failures.append(
                        Violation(
                            .proxyCredentialDisclosed,
                            "A proxy credential (\(scheme)) reached proxy \(entry.proxy) (\(what)) before it asked for one (no 407 from it before): disclosed (invariant 1)."
                        ))
                } else if let other = entry.passwordOf.first(where: { $0 != entry.proxy }) {
                    failures.append(
                        Violation(
                            .proxyCredentialDisclosed,
                            "The password of proxy \(other) reached proxy \(entry.proxy) (\(what)): a proxy's password belongs to that proxy (invariant 1)."))
                } else if entry.password, entry.clearText, !(login?.proxy == entry.proxy && login?.allowClearText == true) {
                    failures.append(
                        Violation(
                            .proxyCredentialDisclosed,
                            "The password of plain-http proxy \(entry.proxy) went to it in clear (\(scheme)) without the user's consent (invariant 1)."))
                }
            }
            if entry.status == 407 { asked.insert(entry.proxy) }
        }
        for entry in evidence.journal where entry.proxyPassword == true {
            failures.append(
                Violation(
                    .proxyCredentialDisclosed,
                    "A proxy password reached the host \(entry.host) with \(entry.method) \(entry.path): a proxy's password belongs to the proxy alone (invariant 1)."
                ))
        }
        if let through = scenario.proxy?.through {
            let tunnels = Set(evidence.proxyEntries.filter { $0.proxy == through }.compactMap(\.tunnelPort))
            for connection in evidence.connections where connection.scheme == "https" && !tunnels.contains(connection.peerPort ?? -1) {
                failures.append(
                    Violation(
                        .proxyBypassed,
                        "A connection reached \(describe(connection)) without going through proxy \(through), which the client was told to use (invariant 1: the organisation's proxy is not bypassed)."
                    ))
                break
            }
        }
        return Array(failures.prefix(4))
    }

    /// In a `refuse` scenario whose OpenID Connect or OAuth2 provider misbehaves (a forged state,
    /// an unsigned id_token, a mix-up...), a login with a token from that provider means the
    /// client accepted what it should have refused.
    func faultLoginFailures(_ evidence: ScenarioEvidence) -> [Violation] {
        // A spent refresh token presented again: a replay, whatever the outcome (a provider with
        // reuse detection revokes every token of the family).
        if evidence.refreshTokenReuses > 0, scenario.oidcFaults?.acceptReusedRefreshToken != true {
            return [
                Violation(
                    .refreshTokenReplayed,
                    "The client presented a refresh token that had already been used (\(evidence.refreshTokenReuses) time(s)): a replay, which a provider with reuse detection answers by revoking every token of the account (invariant 1)."
                )
            ]
        }
        guard scenario.outcome == .refuse, scenario.oidcFaults != nil else { return [] }
        // Using the token on the user's files is the login; asking who the token belongs to
        // (userinfo, the OCS user endpoint) is how a client finds out that the login is wrong.
        guard
            let entry = evidence.journal.first(where: {
                $0.acceptedToken == true && (200..<300).contains($0.status) && $0.path.contains("/remote.php/")
            })
        else { return [] }
        return [
            Violation(
                .tokenFromFaultyProvider,
                "The client logged in with a token (\(entry.method) \(entry.path)) from a provider whose answers it should have refused (\(scenario.summary)) (invariant 1)."
            )
        ]
    }

    /// Plain HTTP; a man in the middle whose certificate was not approved before; a host serving
    /// a certificate that is not its genuine one (nor accepted by the fixture), not approved before.
    func isHostile(_ entry: JournalEntry, at index: Int, _ evidence: ScenarioEvidence) -> Bool {
        if entry.scheme == "http" { return true }
        let approved = evidence.questions.contains {
            $0.question == .certificate && $0.approved && $0.at <= index && evidence.address(of: $0.about) == entry.host
        }
        if entry.mitm == true { return !(approved || sanctionedInterceptor(scenario.certificates?[entry.host])) }
        // The genuine host behind a man in the middle sees what the interceptor forwarded; the
        // interceptor's own entry is the one judged.
        if scenario.mitm == true, entry.host == evidence.interceptedAddress { return false }
        return !(approved || isEntitled(certificateCase(at: entry.host), at: entry.host, evidence))
    }

    /// Which credential a request carried, and where (the simulator's words).
    static func credential(in entry: JournalEntry) -> String {
        if let found = entry.found, !found.isEmpty { return found.prefix(3).joined(separator: "; ") }
        if entry.authorization { return "an Authorization header" }
        if entry.cookie { return "a Cookie header" }
        return "a secret in the body"
    }

    func certificateCase(at address: String) -> String {
        if let plan = scenario.revocation { return plan.certificateCase }
        return scenario.certificates?[address] ?? HostSimulatorCases.genuine(for: address)
    }

    func describe(_ entry: JournalEntry) -> String {
        if entry.scheme == "http" { return "\(entry.host) over plain HTTP" }
        if entry.mitm == true { return "the man in the middle at \(entry.host) (certificate \(certificateCase(at: entry.host)))" }
        return "\(entry.host) (certificate \(certificateCase(at: entry.host)))"
    }

    /// Invariant 2: no planted secret in a log line, a message shown, or the client's error.
    func logFailures(_ evidence: ScenarioEvidence) -> [Violation] {
        var failures: [Violation] = []
        let lines = evidence.logLines + (evidence.result.message.map { [(source: "the client's error message", line: $0)] } ?? [])
        for secret in evidence.plantedSecrets {
            if let hit = lines.first(where: { $0.line.contains(secret.value) }) {
                failures.append(Violation(.secretInLog, "\(hit.source) has a line with \(secret.what) (invariant 2: no secret in a log line)."))
            }
        }
        return failures
    }

    /// Invariant 4: after setup the keyring holds exactly the method's secrets for this account
    /// (none when no account was added); after the removal, none.
    func keyringFailures(_ evidence: ScenarioEvidence) -> [Violation] {
        var failures: [Violation] = []
        func fail(_ message: String) { failures.append(Violation(.keyring, message)) }
        if let account = evidence.result.account ?? evidence.existingAccount {
            var expected = Self.secretKinds(method: account.method)
            // A provider that issues no refresh token leaves the access token alone.
            if scenario.oidcFaults?.noRefreshToken == true { expected.remove("refresh-token") }
            let held = evidence.keyringAfterAdd[account.secretAccount].map(Set.init) ?? []
            if held != expected {
                fail("After setup the keyring held \(Self.list(held)) for \(account.secretAccount); expected \(Self.list(expected)) (invariant 4).")
            }
            for (other, kinds) in evidence.keyringAfterAdd.sorted(by: { $0.key < $1.key }) where other != account.secretAccount {
                fail("After setup the keyring held \(Self.list(Set(kinds))) for \(other), which is not the account added (invariant 4).")
            }
            if let error = evidence.removalError { fail("Removing the account failed: \(SuiteText.oneLine(error)) (invariant 4).") }
            for (other, kinds) in evidence.keyringAfterRemoval.sorted(by: { $0.key < $1.key }) {
                fail("After the account was removed the keyring still held \(Self.list(Set(kinds))) for \(other) (invariant 4).")
            }
            if evidence.accountsLeft > 0 { fail("After the account was removed, \(evidence.accountsLeft) account(s) remained in the database.") }
        } else {
            for (other, kinds) in evidence.keyringAfterAdd.sorted(by: { $0.key < $1.key }) {
                fail("No account was added, yet the keyring held \(Self.list(Set(kinds))) for \(other) (invariant 4).")
            }
        }
        return failures
    }

    /// The secrets an account of this method keeps.
    static func secretKinds(method: String) -> Set<String> {
        // Basic keeps the password; Nextcloud's Login Flow v2 the app password (kind password).
        ["com.owncloud.basicauth", "com.nextcloud.login-flow-v2"].contains(method) ? ["password"] : ["access-token", "refresh-token"]
    }

    static func list(_ kinds: Set<String>) -> String { kinds.isEmpty ? "nothing" : kinds.sorted().joined(separator: ", ") }

    /// The host of `host:port` (IPv6 literals keep their colons).
    static func host(of hostPort: String) -> String {
        guard let colon = hostPort.lastIndex(of: ":") else { return hostPort }
        return String(hostPort[..<colon])
    }
}

/// The simulator's naming of genuine certificates (`valid-<address>`), restated here so that the
/// suite's judgement does not depend on the simulator's internals.
enum HostSimulatorCases {
    static func genuine(for address: String) -> String { address == "::1" ? "valid-ipv6" : "valid-\(address)" }
}
