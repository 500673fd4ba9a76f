import FoundationEssentials
import Glibc
import VigilCertificates
import VigilCommandLine
import VigilHTTP

/// The `vigil inspect --json` document. Schema: docs/cli.md ("inspect JSON, schema 1").
/// Fields are only ever added within a schema version.
struct InspectReport: Encodable {
    struct Target: Encodable {
        /// `host` or `files`.
        var kind: String
        var url: String?
        var files: [String]?
        var peerName: PeerName?
    }
    struct Verdict: Encodable {
        var trusted: Bool
        var basis: TrustBasis?
        var reasons: [TrustReason]
        /// The profile that decided (`webpki` or `rfc5280`) and why.
        var profile: TrustProfile.Decision
        /// Web PKI rules the chain breaks that did not decide under `rfc5280`: findings.
        var rulesNotApplied: [TrustReason]
        /// The valid policy set of a trusted path (RFC 5280 section 6.1.5), dotted OIDs.
        var validPolicies: [String] = []
        /// What was learnt about revocation (live, or from `--ocsp-response`); absent otherwise.
        var revocation: RevocationReport?
        /// Statuses that could not be learnt under soft-fail: findings, not reasons.
        var revocationFindings: [String] = []
        /// Findings about the path as a whole: `locally-added-root` (the chain ends in a root added
        /// to this machine's trust store), `interception` (another certificate than the one known
        /// for this server, through such a root).
        var findings: [Finding] = []
    }
    struct Connection: Encodable {
        var protocolVersion: String
        var cipher: String
        var address: String
        /// Which proxy the handshake went through (`proxy`: nil when direct), where the choice came
        /// from (`source`), and a PAC file's answer (`autoconfigAnswer`).
        var via: ProxyUse?
        /// Mutual TLS: `required` (the server ends the handshake without one), `optional` (it
        /// asks and goes on without), or `no`.
        var clientCertificate: String = "no"
        /// The issuers the server accepts client certificates from (its CertificateRequest).
        var acceptedIssuers: [String]?
        /// With --client-certificate: what became of the one presented (`accepted`, `refused: ...`,
        /// `not presented: ...`).
        var clientCertificatePresented: String?
        /// A finding about client certificates on this connection (TLS 1.2 sends them in clear).
        var clientCertificateFinding: String?
    }

    /// An approval the user made for this host and port (live only): whether it is for the very
    /// certificate the server sent. Accounts accept an approved leaf; `inspect` judges the chain.
    struct Approval: Encodable {
        var id: Int64?
        var sha256: String
        var approvedAt: String
        /// True when the server sent the approved certificate.
        var matches: Bool
        /// True when accounts accept it: it matches, and nothing makes it unapprovable now (a
        /// weak key, a revocation, another name: ``VigilCertificates/ApprovalRule``).
        var honoured: Bool
    }

    var schemaVersion = 1
    var target: Target
    var evaluatedAt: String
    var verdict: Verdict
    var connection: Connection?
    var chain: ChainSummary
    var certificates: [CertificateSummary]
    /// Active approvals for the host and port inspected (live only; absent when none).
    var approvals: [Approval]?
    /// What this user's store holds about the server and could not be read (a damaged row or
    /// chain): the approvals and the interception check may be incomplete (absent when none).
    var storeUnreadable: [String]?
    /// After an untrusted verdict: what the user can do, as commands to run (absent when trusted).
    var nextSteps: [String]?

    init(target: Target, evaluation: TrustEvaluation, sent: [Certificate], connection: Connection?) {
        self.target = target
        self.evaluatedAt = evaluation.time.formatted(.iso8601)
        switch evaluation.verdict {
        case .trusted(let basis):
            self.verdict = Verdict(trusted: true, basis: basis, reasons: [], profile: evaluation.profile, rulesNotApplied: evaluation.rulesNotApplied)
        case .untrusted(let reasons):
            self.verdict = Verdict(trusted: false, basis: nil, reasons: reasons, profile: evaluation.profile, rulesNotApplied: evaluation.rulesNotApplied)
        }
        self.verdict.validPolicies = evaluation.validPolicies
        self.verdict.revocation = evaluation.revocation
        self.verdict.revocationFindings = evaluation.revocation?.findings ?? []
        self.verdict.findings = evaluation.findings
        self.connection = connection
        self.chain = evaluation.chain
        self.certificates = evaluation.summaries(of: sent)
    }

    func json() throws -> String {
        try JSONOutput.text(self)
    }
}
