internal import COpenSSL
public import FoundationEssentials
import Glibc

/// Evaluates a certificate chain against a trust store with system OpenSSL, then Vigil's own
/// checks (``StrictProfile``). The same evaluator serves `vigil inspect`, the HTTP client and
/// the x509-limbo harness.
///
/// - Warning: A `.trusted` verdict says the chain is valid for the name given; with no name,
///   no name was checked.
public struct TrustEvaluator: Sendable {
    /// How to evaluate.
    public struct Configuration: Sendable {
        /// Use the system trust store (OpenSSL's default paths; `SSL_CERT_FILE` / `SSL_CERT_DIR` honoured).
        public var useSystemStore: Bool
        /// PEM files of additional trust anchors.
        public var caFiles: [String]
        /// The system store's roots from these PEM files instead of OpenSSL's default paths (with
        /// ``useSystemStore``): what `vigil simulate` gives a scenario that plays a machine's own
        /// store (an administrator's added root among them). Nil: the machine's store.
        public var systemStoreFiles: [String]? = nil
        /// Additional trust anchors given in code.
        public var anchors: [Certificate]
        /// The time to evaluate at; nil means now.
        public var time: Date?
        /// What the leaf is for.
        public var purpose: Purpose
        /// Maximum number of intermediates between leaf and anchor; nil for OpenSSL's default (100).
        public var maximumIntermediates: Int?
        /// CRLs (PEM, any number in each) to check every certificate of the path against
        /// (``CRLEvaluation``); when non-empty, each certificate but the anchor must be covered.
        public var crlsPEM: [String]
        /// OpenSSL security level for keys and signatures; 2 rejects RSA < 2048 and SHA-1.
        public var securityLevel: Int
        /// Which rules of the strict profile decide (``TrustProfile``); by default, the anchor decides.
        public var profile: TrustProfile.Choice = .byAnchor
        /// RFC 5280 section 6.1's inputs: the user-initial-policy-set (dotted OIDs; RFC 5280's
        /// default, any-policy), initial-explicit-policy, initial-policy-mapping-inhibit and
        /// initial-any-policy-inhibit (all off by default, as RFC 5280 has them).
        public var initialPolicies: [String] = [Self.anyPolicy]
        /// RFC 5280's initial-explicit-policy: a valid policy is required for the whole path.
        public var requireExplicitPolicy = false
        /// RFC 5280's initial-policy-mapping-inhibit: policy mappings are not allowed.
        public var inhibitPolicyMapping = false
        /// RFC 5280's initial-any-policy-inhibit: anyPolicy is not honoured.
        public var inhibitAnyPolicy = false
        /// The anyPolicy OID.
        public static let anyPolicy = "2.5.29.32.0"

        /// The system trust store, TLS server purpose, security level 2.
        public static var system: Configuration {
            Configuration(
                useSystemStore: true, caFiles: [], anchors: [], time: nil, purpose: .serverAuth, maximumIntermediates: nil, crlsPEM: [], securityLevel: 2)
        }

        /// Only the given CA files.
        public static func caFiles(_ paths: [String]) -> Configuration {
            var configuration = Configuration.system
            configuration.useSystemStore = false
            configuration.caFiles = paths
            return configuration
        }

        /// This configuration (its policy inputs, profile, time) trusting `anchors` alone: no system
        /// store, no CA file. An account's own CAs are applied this way.
        public func onlyTrusting(_ anchors: [Certificate]) -> Configuration {
            var configuration = self
            configuration.useSystemStore = false
            configuration.systemStoreFiles = nil
            configuration.caFiles = []
            configuration.anchors = anchors
            return configuration
        }

        /// Only the given anchors.
        public static func anchors(_ anchors: [Certificate]) -> Configuration {
            var configuration = Configuration.system
            configuration.useSystemStore = false
            configuration.anchors = anchors
            return configuration
        }
    }

    /// The use a leaf certificate must be fit for.
    public enum Purpose: String, Sendable, Codable { case serverAuth, clientAuth }

    /// How this evaluator evaluates.
    public let configuration: Configuration
    let store: Store
    let fileAnchors: [(path: String, certificates: [Certificate])]
    /// The roots of ``Configuration/systemStoreFiles``, when given.
    let systemStoreAnchors: [Certificate]
    /// The CRLs of ``Configuration/crlsPEM``, in the order given.
    let revocationLists: [RevocationList]

    /// Loads the trust store. Throws only for unreadable or malformed CA files and CRLs.
    public init(configuration: Configuration = .system) throws {
        self.configuration = configuration
        var fileAnchors: [(String, [Certificate])] = []
        for path in configuration.caFiles {
            fileAnchors.append((path, try Certificate.load(path: path)))
        }
        self.fileAnchors = fileAnchors
        let systemStoreAnchors = configuration.useSystemStore ? try (configuration.systemStoreFiles ?? []).flatMap { try Certificate.load(path: $0) } : []
        self.systemStoreAnchors = systemStoreAnchors
        var revocationLists: [RevocationList] = []
        for (index, pem) in configuration.crlsPEM.enumerated() {
            do {
                revocationLists += try RevocationList.parse(Array(pem.utf8))
            } catch let error as CertificateError {
                throw CertificateError(.malformedCRL, "CRL \(index + 1): \(error.reason)")
            }
        }
        self.revocationLists = revocationLists
        self.store = try Store(
            configuration: configuration, fileAnchors: fileAnchors.flatMap(\.1) + systemStoreAnchors, revocationLists: revocationLists)
    }

    /// An untrusted verdict for `reason`, with no path evaluated (a chain nothing may trust).
    public static func refusal(_ reason: TrustReason, peerName: PeerName?, at time: Date = Date()) -> TrustEvaluation {
        TrustEvaluation(
            verdict: .untrusted([reason]),
            chain: ChainSummary(sent: [], verified: [], rootSent: false, sentInOrder: true, missingIssuers: [], unusedSent: []), verifiedChain: [],
            time: time, peerName: peerName)
    }

    /// Evaluates `chain` (leaf first, the rest in any order) for `peerName`.
    public func evaluate(_ chain: [Certificate], for peerName: PeerName?) -> TrustEvaluation {
        let time = configuration.time ?? Date()
        guard let leaf = chain.first else {
            return Self.refusal(TrustReason(code: .noCertificate, message: "No certificate was presented."), peerName: peerName, at: time)
        }
        // The chain as sent first; when it fails, the other paths its certificates allow
        // (``PathCandidates``), bounded; the first trusted one decides, else the one as sent.
        let first = evaluatePath(leaf: leaf, untrusted: Array(chain.dropFirst()), time: time, peerName: peerName)
        var chosen = first
        var tried = 1
        if !first.verdict.isTrusted {
            for path in PathCandidates.alternatives(leaf: leaf, pool: Array(chain.dropFirst())) {
                tried += 1
                let attempt = evaluatePath(leaf: leaf, untrusted: path, time: time, peerName: peerName)
                if attempt.verdict.isTrusted {
                    chosen = attempt
                    break
                }
            }
        }
        var summary = Self.chainSummary(sent: chain, verified: chosen.chain, trusted: chosen.verdict.isTrusted, reasons: chosen.verdict.reasons)
        summary.pathsTried = tried
        summary.builtFromAlternative = chosen.verdict.isTrusted && tried > 1
        var evaluation = TrustEvaluation(verdict: chosen.verdict, chain: summary, verifiedChain: chosen.chain, time: time, peerName: peerName)
        if chosen.verdict.isTrusted { evaluation.validPolicies = chosen.policies }
        // The anchor the path ends in, trusted or not (an expired leaf under a locally added root
        // is still that root's chain): a path OpenSSL completed, or one whose last certificate
        // is a self-signed root of the system bundle.
        // (Not where a signature or an issuer failed: a forged leaf named after a root is not that root's chain.)
        let forged: Set<TrustReason.Code> = [.badSignature, .unknownIssuer, .invalidCA, .signedByNonCA]
        if let last = chosen.chain.last,
            chosen.reachedAnchor
                || (configuration.useSystemStore && last.isSelfSigned
                    && (configuration.systemStoreFiles == nil ? SystemAnchors.contains(last) : systemStoreAnchors.contains(last))
                    && !fileAnchors.contains { $0.certificates.contains(last) } && !chosen.verdict.reasons.contains { forged.contains($0.code) })
        {
            evaluation.anchor = basis(for: last)
        }
        // A CA vouches for the certificates' contents (their revocation addresses among them) when
        // the path ends in one of the anchors with every signature verified, whatever else fails
        // (an expired intermediate, a wrong key usage): not for a self-signed leaf or an unknown CA.
        if let last = chosen.chain.last, chosen.chain.count >= 2, last.isSelfSigned, isTrustAnchor(last),
            chosen.verdict.isTrusted || !chosen.verdict.reasons.contains(where: { forged.contains($0.code) })
        {
            evaluation.reachesTrustedAnchor = true
        }
        if case .trusted(let basis) = chosen.verdict, basis.source == .locallyAdded { evaluation.findings.append(.locallyAddedRoot(basis)) }
        evaluation.profile = chosen.profile
        evaluation.rulesNotApplied = chosen.notApplied
        if !revocationLists.isEmpty && chosen.reachedAnchor {
            evaluation = evaluation.requiring(givenCRLs: checkCRLs(path: chosen.chain, sent: chain, at: time))
        }
        return evaluation
    }

    /// One path's verdict: OpenSSL's run over exactly these untrusted certificates, then the
    /// strict profile; each reason decides only where its profile applies.
    struct PathResult {
        var verdict: TrustVerdict
        var chain: [Certificate]
        var policies: [String]
        var profile: TrustProfile.Decision
        var notApplied: [TrustReason]
        /// OpenSSL completed the path to an anchor (the verdict may still be untrusted for a profile rule).
        var reachedAnchor = false
    }

    func evaluatePath(leaf: Certificate, untrusted: [Certificate], time: Date, peerName: PeerName?) -> PathResult {
        let run = store.verify(leaf: leaf, untrusted: untrusted, configuration: configuration, time: time, peerName: peerName)
        // An anchor was reached when OpenSSL verified the path and every error it let pass is a
        // profile rule's (those never change how the path is built).
        let reachedAnchor = run.verified && run.reasons.allSatisfy { ProfileRule.rule(for: $0.code) != nil }
        var anchorSource = reachedAnchor ? run.chain.last.map(basis(for:))?.source : nil
        // A public root passed as a CA file is still the Web PKI (where the public roots are not
        // known, a root of the system bundle stands for one).
        if let source = anchorSource, source == .caFile || source == .certificate, case .byAnchor = configuration.profile, let anchor = run.chain.last,
            PublicRoots.contains(anchor) ?? SystemAnchors.contains(anchor)
        {
            anchorSource = .systemStore
        }
        let profile = TrustProfile.decide(configuration.profile, anchor: anchorSource, usesSystemStore: configuration.useSystemStore)
        let applies = { (reason: TrustReason) in ProfileRule.rule(for: reason.code)?.applies(in: profile.profile) ?? true }
        var reasons = run.reasons.filter(applies)
        var notApplied = run.reasons.filter { !applies($0) }
        if reachedAnchor || !run.reasons.isEmpty {
            let strict = StrictProfile.check(chain: run.chain, peerName: peerName, purpose: configuration.purpose, alreadyFound: reasons)
            reasons += strict.filter(applies)
            notApplied += strict.filter { !applies($0) }
        }
        let verdict: TrustVerdict
        if reachedAnchor && reasons.isEmpty, let anchor = run.chain.last {
            verdict = .trusted(basis(for: anchor))
        } else {
            if reasons.isEmpty {
                reasons.append(TrustReason(code: .notVerified, message: "OpenSSL did not verify the chain and gave no reason."))
            }
            verdict = .untrusted(reasons)
        }
        return PathResult(verdict: verdict, chain: run.chain, policies: run.policies, profile: profile, notApplied: notApplied, reachedAnchor: reachedAnchor)
    }

    /// The given CRLs' word on every certificate of `path` but its anchor (``CRLEvaluation``).
    func checkCRLs(path: [Certificate], sent: [Certificate], at time: Date) -> [RevocationCheck] {
        CRLEvaluation.check(path: path, others: sent, lists: revocationLists, at: time, securityLevel: configuration.securityLevel)
    }

    /// `certificate` is one of this evaluator's anchors (a CA file's, one given in code, the
    /// system store's or the played store's).
    func isTrustAnchor(_ certificate: Certificate) -> Bool {
        if fileAnchors.contains(where: { $0.certificates.contains(certificate) }) || configuration.anchors.contains(certificate) { return true }
        guard configuration.useSystemStore else { return false }
        return configuration.systemStoreFiles == nil ? SystemAnchors.contains(certificate) : systemStoreAnchors.contains(certificate)
    }

    func basis(for anchor: Certificate) -> TrustBasis {
        let subject = anchor.subject
        let fingerprint = anchor.sha256Fingerprint
        if let file = fileAnchors.first(where: { $0.certificates.contains(anchor) }) {
            return TrustBasis(source: .caFile, path: file.path, anchorSubject: subject, anchorSHA256: fingerprint)
        }
        if configuration.anchors.contains(anchor) {
            return TrustBasis(source: .certificate, path: nil, anchorSubject: subject, anchorSHA256: fingerprint)
        }
        // A root of the system store that is not a public one was added to this machine. A played
        // store's roots (systemStoreFiles) are added ones unless known public, wherever it runs.
        let played = configuration.systemStoreFiles != nil && systemStoreAnchors.contains(anchor)
        let source: TrustBasis.Source =
            played
            ? (PublicRoots.contains(anchor) == true ? .systemStore : .locallyAdded) : PublicRoots.contains(anchor) == false ? .locallyAdded : .systemStore
        return TrustBasis(source: source, path: nil, anchorSubject: subject, anchorSHA256: fingerprint)
    }

    static func chainSummary(sent: [Certificate], verified: [Certificate], trusted: Bool, reasons: [TrustReason]) -> ChainSummary {
        func entry(_ certificate: Certificate, index: Int, anchor: Bool) -> ChainSummary.Entry {
            .init(
                subject: certificate.subject, issuer: certificate.issuer, sha256: certificate.sha256Fingerprint,
                role: CertificateRole(position: index, of: certificate, isAnchor: anchor), isSelfSigned: certificate.isSelfSigned, isAnchor: anchor)
        }
        let sentEntries = sent.enumerated().map { entry($1, index: $0, anchor: false) }
        let verifiedEntries = verified.enumerated().map { index, certificate in
            entry(certificate, index: index, anchor: trusted && index == verified.count - 1)
        }
        let inOrder = sent.count < 2 || zip(sent, sent.dropFirst()).allSatisfy { $0.isIssued(byNameOf: $1) }
        let rootSent = sent.dropFirst().contains { $0.isSelfSigned } || (sent.count == 1 && sent[0].isSelfSigned)
        var missing: [String] = []
        if reasons.contains(where: { $0.code == .unknownIssuer }), let last = verified.last ?? sent.first, !last.isSelfSigned {
            missing.append(last.issuer)
        }
        let unused = sent.indices.filter { !verified.contains(sent[$0]) }
        return ChainSummary(
            sent: sentEntries, verified: verifiedEntries, rootSent: rootSent, sentInOrder: inOrder, missingIssuers: missing,
            unusedSent: verified.isEmpty ? [] : unused)
    }
}

/// A verdict with what was evaluated and how the chain was built.
public struct TrustEvaluation: Sendable {
    /// Trusted and on what basis, or untrusted and why.
    public var verdict: TrustVerdict
    /// The profile that decided, and why.
    public var profile: TrustProfile.Decision = .init(profile: .webpki, why: "forced")
    /// Rules of the Web PKI profile the chain breaks that did not decide because the rfc5280
    /// profile applied: shown as findings, never silent.
    public var rulesNotApplied: [TrustReason] = []
    /// The chain as sent and as verified.
    public var chain: ChainSummary
    /// Leaf to anchor, as verification built it (possibly partial when untrusted).
    public var verifiedChain: [Certificate]
    /// The anchor the path ends in, whatever the verdict (nil when it reached none Vigil knows);
    /// for a trusted verdict, its basis.
    public var anchor: TrustBasis?
    /// The path ends in one of the evaluator's anchors and every signature on it verifies, trusted
    /// or not (an expired intermediate, a wrong key usage): a CA vouches for what the certificates
    /// say, their OCSP and CRL addresses among them. False for a self-signed leaf or an unknown CA.
    public var reachesTrustedAnchor = false
    /// Findings about the path as a whole (a chain that ends in a locally added root; an
    /// interception), shown with the verdict in text and JSON; they do not decide it.
    public var findings: [Finding] = []
    /// The valid policy set of a trusted path (RFC 5280 section 6.1.5, dotted OIDs; `2.5.29.32.0`
    /// is any-policy); empty when untrusted.
    public var validPolicies: [String] = []
    /// What was learnt about revocation (staple, OCSP, CRLs); nil when nothing was asked.
    public var revocation: RevocationReport?
    /// The time the chain was evaluated at.
    public var time: Date
    /// The name the leaf was checked against; nil when no name was checked.
    public var peerName: PeerName?

    /// Summaries of the sent certificates, with findings, leaf first.
    public func summaries(of sent: [Certificate]) -> [CertificateSummary] {
        sent.enumerated().map { index, certificate in
            certificate.summary(at: time, role: CertificateRole(position: index, of: certificate), peerName: index == 0 ? peerName : nil)
        }
    }
}
