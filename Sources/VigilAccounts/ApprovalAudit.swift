public import FoundationEssentials
import Glibc
public import VigilCertificates
public import VigilHTTP
public import VigilStore
import VigilText

/// `vigil certificates audit --check`: approvals that need attention, not only events.
public struct ApprovalAudit: Sendable {
    /// One problem with one approval.
    public struct Problem: Sendable, Hashable, Codable {
        /// The approval's id; 0 for a problem of an account's own (its client certificate).
        public var approval: Int64
        /// `host:port`.
        public var target: String
        /// `expired`, `expires-soon`, `cannot-be-approved`, `unused`, `revoked-but-pinned`,
        /// `account-approval-revoked`, `no-longer-presented`, `not-kept`, `unreachable` (nothing
        /// reached the server), `probe-failed` (something answered, the handshake failed), `revoked`,
        /// `cannot-be-approved-live`; for an account's client certificate, `client-certificate-expired`
        /// and `client-certificate-expires-soon`; for the CAs an account was added with,
        /// `account-ca-unreadable`, `account-ca-expired`, `account-ca-expires-soon`,
        /// `account-ca-not-a-ca` and `account-ca-chain-untrusted`.
        public var code: String
        /// The problem, for the user.
        public var message: String
    }

    /// The approvals audited.
    public var approvals: CertificateApprovals
    /// The accounts, whose servers and client certificates are checked against the approvals.
    public var accounts: Accounts
    /// The minimum TLS version (for --live) and the pins (`revoked-but-pinned`).
    public var requirements: ConnectionRequirements
    /// The time expiry is judged at.
    public var now: Date
    /// How approved certificates are judged (the system store; the settings' policy inputs).
    public var evaluatorConfiguration: TrustEvaluator.Configuration = .system
    /// `client-certificate.expiry-warning-days`.
    public var clientCertificateWarningDays = 30

    /// An audit at `now` (the current time by default).
    public init(approvals: CertificateApprovals, accounts: Accounts, requirements: ConnectionRequirements, now: Date = Date()) {
        self.approvals = approvals
        self.accounts = accounts
        self.requirements = requirements
        self.now = now
    }

    /// Every problem found offline; with `live`, each active approval's server is also asked which
    /// certificate it presents now (a TLS handshake, no request).
    public func check(live: Bool = false, timeout: Duration = .seconds(10), proxy: ProxyConfiguration = ProxyConfiguration()) async throws -> [Problem] {
        var problems: [Problem] = []
        let all = try await approvals.list(includingRevoked: true)
        let accountList = try await accounts.list()
        let servers = accountList.compactMap { try? Endpoint(url: $0.server) }
        let evaluator = try TrustEvaluator(configuration: evaluatorConfiguration)
        for approval in all {
            guard let id = approval.id else { continue }
            let target = "\(approval.host):\(approval.port)"
            func add(_ code: String, _ message: String) { problems.append(Problem(approval: id, target: target, code: code, message: message)) }
            let endpoint = Endpoint(host: approval.host, port: approval.port)
            if !approval.isActive {
                if requirements.pins.pins(for: endpoint).contains(approval.spkiSHA256) {
                    add("revoked-but-pinned", "Revoked, but its key is still pinned for \(target) in connection.pinned-public-keys.")
                }
                // An account still reviewed with this very certificate, and no active approval of
                // it left: its next connection is untrusted, and asks for a review again.
                let dependents = accountList.filter { account in
                    guard let server = try? Endpoint(url: account.server), server.isSameOrigin(as: Endpoint(host: approval.host, port: approval.port)),
                        let leaf = (try? account.reviewedChain())??.first
                    else { return false }
                    return leaf.sha256Fingerprint == approval.sha256
                }
                let stillApproved = all.contains {
                    $0.isActive && $0.sha256 == approval.sha256
                        && Endpoint(host: $0.host, port: $0.port).isSameOrigin(as: Endpoint(host: approval.host, port: approval.port))
                }
                for account in dependents where !stillApproved {
                    add(
                        "account-approval-revoked",
                        "Revoked, and account \(account.id) (\(account.user) on \(account.server)) was set up with this certificate: its next connection asks for a review again, or fails in a cron job."
                    )
                }
                continue
            }
            let certificate = approval.der.flatMap { try? Certificate(derEncoded: [UInt8]($0)) }
            if approval.der != nil, certificate == nil {
                // Kept, and no longer readable: a damaged row, not an old one.
                add(
                    "damaged",
                    "The certificate kept with this approval is stored damaged (it no longer parses); expiry and strength cannot be checked offline (run with --live)."
                )
            } else if let certificate {
                switch Self.expiry(of: certificate, at: now, warningDays: Certificate.expiryWarningDays) {
                case .expired: add("expired", "Expired on \(approval.notAfter).")
                case .expiresSoon(let days): add("expires-soon", "Expires in \(days) days, on \(approval.notAfter).")
                case nil: break
                }
                let evaluation = evaluator.evaluate([certificate], for: endpoint.peerName)
                for refusal in ApprovalRule.refusals(evaluation, sent: [certificate]) {
                    add("cannot-be-approved", refusal.message)
                }
            } else {
                add("not-kept", "The approval predates Vigil keeping the certificate; expiry and strength cannot be checked offline (run with --live).")
            }
            if !servers.contains(where: { $0.isSameOrigin(as: Endpoint(host: approval.host, port: approval.port)) }) {
                add("unused", "No account uses \(target).")
            }
            if live {
                do {
                    let handshake = try await TLSProbe(timeout: timeout, proxy: proxy).handshake(with: endpoint)
                    if handshake.chain.first?.sha256Fingerprint != approval.sha256 {
                        add("no-longer-presented", "\(target) now presents another certificate (\(handshake.chain.first?.sha256Fingerprint ?? "none")).")
                    }
                    // The live chain as a whole (intermediates, the protocol, the pins) under the approval rule.
                    let live = await ConnectionJudge(evaluator: evaluator, requirements: requirements).verdict(for: handshake, endpoint: endpoint)
                    for refusal in ApprovalRule.refusals(live, sent: handshake.chain) {
                        // A certificate revoked since it was approved is named as such.
                        add(refusal.code == .revoked ? "revoked" : "cannot-be-approved-live", refusal.message)
                    }
                } catch let error as HTTPError where error.reachedNothing {
                    add("unreachable", "\(target) could not be reached: \(error.reason)")
                } catch {
                    // Something answered, and the handshake failed (a man in the middle breaking
                    // it, a server no longer speaking TLS, a proxy's refusal): never "unreachable".
                    add("probe-failed", "\(target) was reached, but its certificate could not be read: \((error as? HTTPError)?.reason ?? "\(error)")")
                }
            }
        }
        // The accounts' client certificates: expired ones stop their account at the door.
        for account in accountList {
            let who = "account \(account.id) (\(account.user) on \(account.server))"
            let certificate: Certificate
            do {
                guard let chain = try account.clientCertificate(), let leaf = chain.first else { continue }
                certificate = leaf
            } catch {
                problems.append(
                    Problem(
                        approval: 0, target: account.server, code: "client-certificate-damaged",
                        message:
                            "The client certificate of \(who) is stored damaged; the account cannot present it: \(SuggestedCommand.line(["vigil", "account", "edit", account.id, "--client-certificate", "FILE"]))."
                    ))
                continue
            }
            let summary = certificate.summary(at: now)
            switch Self.expiry(of: certificate, at: now, warningDays: clientCertificateWarningDays) {
            case .expired:
                problems.append(
                    Problem(
                        approval: 0, target: account.server, code: "client-certificate-expired",
                        message:
                            "The client certificate of \(who) expired on \(summary.validity.notAfter): \(SuggestedCommand.line(["vigil", "account", "edit", account.id, "--client-certificate", "FILE"]))."
                    ))
            case .expiresSoon(let days):
                problems.append(
                    Problem(
                        approval: 0, target: account.server, code: "client-certificate-expires-soon",
                        message: "The client certificate of \(who) expires in \(days) days, on \(summary.validity.notAfter)."))
            case nil: break
            }
        }
        problems += accountAnchorProblems(accountList)
        return problems
    }

    /// A kept certificate's expiry, as the audit reports it.
    enum Expiry: Equatable {
        /// Past its notAfter (by a second or by years).
        case expired
        /// Within `warningDays` of its notAfter: this many whole days left.
        case expiresSoon(days: Int)
    }

    /// Whether `certificate` expired at `now` (past its notAfter, whatever the whole days left
    /// round to), or expires within `warningDays`; nil when neither. The one rule for approvals,
    /// client certificates and the CAs kept with accounts.
    static func expiry(of certificate: Certificate, at now: Date, warningDays: Int) -> Expiry? {
        let daysLeft = certificate.summary(at: now).validity.daysLeft
        if daysLeft < 0 || (certificate.notAfter.map { now > $0 } ?? false) { return .expired }
        return daysLeft < warningDays ? .expiresSoon(days: daysLeft) : nil
    }

    /// The CA certificates accounts were added with (`--ca-file`, kept with the account): each
    /// still a CA and in date, and the account's reviewed chain still verifying against them.
    /// Codes `account-ca-unreadable`, `account-ca-expired`, `account-ca-expires-soon`,
    /// `account-ca-not-a-ca`, `account-ca-chain-untrusted`.
    func accountAnchorProblems(_ accountList: [Account]) -> [Problem] {
        var problems: [Problem] = []
        for account in accountList {
            let who = "account \(account.id) (\(account.user) on \(account.server))"
            func add(_ code: String, _ message: String) { problems.append(Problem(approval: 0, target: account.server, code: code, message: message)) }
            // The chain reviewed for the account, damaged: said, whatever its CAs.
            if (try? account.reviewedChain()) == nil, account.reviewedChainPEM != nil {
                add(
                    "account-chain-damaged",
                    "The certificate chain reviewed for \(who) is stored damaged: \(SuggestedCommand.line(["vigil", "account", "login", account.id])) reviews it again."
                )
            }
            let anchors: [Certificate]
            do {
                guard let stored = try account.trustAnchors() else { continue }
                anchors = stored
            } catch {
                add(
                    "account-ca-unreadable",
                    "The CA certificates kept with \(who) are stored damaged: \(SuggestedCommand.line(["vigil", "account", "edit", account.id, "--ca-file", "FILE"]))."
                )
                continue
            }
            for anchor in anchors {
                let summary = anchor.summary(at: now)
                switch Self.expiry(of: anchor, at: now, warningDays: Certificate.expiryWarningDays) {
                case .expired: add("account-ca-expired", "The CA \(summary.subject) kept with \(who) expired on \(summary.validity.notAfter).")
                case .expiresSoon(let days):
                    add("account-ca-expires-soon", "The CA \(summary.subject) kept with \(who) expires in \(days) days, on \(summary.validity.notAfter).")
                case nil: break
                }
                if summary.basicConstraints?.isCA != true && !anchor.isVerifiedSelfSigned {
                    add("account-ca-not-a-ca", "\(summary.subject), kept with \(who) as a CA, is not a CA certificate.")
                }
            }
            // The chain reviewed at setup, judged now against those CAs alone.
            guard let chain = (try? account.reviewedChain()) ?? nil else { continue }
            var configuration = evaluatorConfiguration.onlyTrusting(anchors)
            configuration.time = now
            guard let evaluator = try? TrustEvaluator(configuration: configuration) else { continue }
            let peer = (try? Endpoint(url: account.server))?.peerName
            if case .untrusted(let reasons) = evaluator.evaluate(chain, for: peer).verdict {
                add(
                    "account-ca-chain-untrusted",
                    "The chain reviewed for \(who) does not verify against the CAs kept with it now (wrong CAs, or a reviewed certificate that has expired): \(reasons.map(\.message).joined(separator: " ")) Run \(SuggestedCommand.line(["vigil", "account", "check", account.id])) to see what the server presents."
                )
            }
        }
        return problems
    }
}
