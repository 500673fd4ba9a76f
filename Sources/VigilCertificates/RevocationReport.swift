import FoundationEssentials
import Glibc

/// What one connection learnt about the revocation of its chain, and what that means under a
/// ``RevocationPolicy``. Built by ``RevocationReport/check(_:sent:staple:policy:fetch:)``, the
/// one place revocation is decided: the HTTP client's handshake, `vigil inspect`, account setup
/// and check, `certificates approve` and `audit --check --live` all come here.
public struct RevocationReport: Codable, Sendable, Hashable {
    /// A certificate no usable answer was found for.
    public struct Unresolved: Codable, Sendable, Hashable {
        /// Subject of that certificate.
        public var subject: String
        /// Its depth in the chain (0: the server's).
        public var depth: Int
        /// It names an OCSP responder or a CRL (otherwise there was nothing to ask).
        public var namesASource: Bool
    }

    /// The policy the report is judged under.
    public var policy: RevocationPolicy
    /// Every answer read, usable or not: the server's certificate first, each certificate's
    /// answers in the order asked.
    public var checks: [RevocationCheck] = []
    /// Certificates no usable answer was found for.
    public var unresolved: [Unresolved] = []
    /// The server stapled an OCSP answer to the handshake (nil: not a live handshake).
    public var stapled: Bool?
    /// The server's certificate demands a stapled answer (RFC 7633).
    public var mustStaple = false
    /// Responders and CRLs were not asked: the policy is off, or no CA vouches for the chain
    /// (untrusted, or trusted only by the user's approval).
    public var notFetched = false
    /// The OCSP responders and CRLs the chain names that were not asked because no CA vouches
    /// for it: shown, never fetched.
    public var addressesNotAsked: [String] = []

    /// An empty report under `policy`.
    public init(policy: RevocationPolicy) { self.policy = policy }

    /// The reasons this report makes a verdict untrusted: a usable "revoked" answer (always);
    /// a must-staple certificate without a usable staple (unless the policy is off); a
    /// certificate with a source but no usable answer (hard-fail).
    public var reasons: [TrustReason] {
        var reasons: [TrustReason] = []
        for check in checks where check.status == .revoked {
            let when = check.revokedAt.map { " on \(Certificate.iso8601($0))" } ?? ""
            let why = check.reason.map { " (\($0))" } ?? ""
            let who = check.depth == 0 ? "The server certificate" : "The certificate at depth \(check.depth) (\(check.subject))"
            reasons.append(
                TrustReason(
                    code: .revoked, message: "\(who) has been revoked by its CA\(when)\(why), says the \(check.source.words).", depth: check.depth,
                    subject: check.subject))
        }
        if mustStaple && policy != .off && !checks.contains(where: { $0.source == .staple && $0.status != nil }) {
            reasons.append(
                TrustReason(
                    code: .mustStapleMissing,
                    message: "The server certificate requires a stapled OCSP answer (must-staple, RFC 7633), and the server sent "
                        + (stapled == true ? "none that can be used." : "none."), depth: 0))
        }
        if policy == .hardFail {
            for item in unresolved where item.namesASource {
                reasons.append(
                    TrustReason(
                        code: .revocationUnknown,
                        message:
                            "The revocation status of \(item.depth == 0 ? "the server certificate" : item.subject) could not be learnt"
                            + (problems(at: item.depth).map { " (\($0))" } ?? "") + ", and connection.revocation-policy is hard-fail.",
                        depth: item.depth, subject: item.subject))
            }
        }
        return reasons
    }

    /// What to show that does not decide: statuses that could not be learnt under soft-fail.
    public var findings: [String] {
        guard policy == .softFail else { return [] }
        return unresolved.filter(\.namesASource).map { item in
            "The revocation status of \(item.depth == 0 ? "the server certificate" : item.subject) could not be learnt (soft-fail): "
                + (problems(at: item.depth).map { $0 + "." } ?? "no answer.")
        }
    }

    /// Why the sources of the certificate at `depth` gave nothing, each problem said once with
    /// every source it came from (`URL1, URL2: the proxy ... refused`), in the order asked; nil
    /// when none says.
    func problems(at depth: Int) -> String? {
        var order: [String] = []
        var sources: [String: [String]] = [:]
        for check in checks where check.depth == depth {
            guard var problem = check.problem else { continue }
            // Without its own full stop: they are joined, and the sentence ends once.
            while problem.hasSuffix(".") { problem.removeLast() }
            let source = check.url ?? check.source.words
            if sources[problem] == nil { order.append(problem) }
            if sources[problem, default: []].contains(source) == false { sources[problem, default: []].append(source) }
        }
        guard !order.isEmpty else { return nil }
        return order.map { "\(sources[$0, default: []].joined(separator: ", ")): \($0)" }.joined(separator: "; ")
    }

    /// Asks, for each certificate of the chain but its anchor, from the anchor down: the staple (the server's
    /// certificate), then its OCSP responders, then its CRLs, at most two of each, until one gives
    /// a usable "good" or "revoked". Each certificate's issuer is the next one of the verified
    /// path when the chain is trusted, else the sent certificate whose key signed it. A fetched
    /// CRL is read by ``CRLEvaluation`` over the whole verified path (indirect CRLs, issuing
    /// distribution points, another key of the same CA). `fetch` gets each request (bounded and
    /// cached by the caller); with the policy off, it is never called.
    /// `given`: an OCSP response for the server's certificate given offline (`--ocsp-response`),
    /// read after the staple.
    /// `mayFetch`: the caller allows fetching. Nothing is fetched for a chain no CA vouches for
    /// (``TrustEvaluation/reachesTrustedAnchor`` false: a self-signed leaf, an unknown CA, even
    /// approved by the user): a revocation statement counts only from a trusted CA, and the
    /// addresses such a chain names could be anyone's, internal ones included. They are listed in
    /// ``addressesNotAsked``. A chain that reaches a trusted anchor but fails for another reason
    /// (an expired intermediate) is asked: its addresses are its CA's.
    public static func check(
        _ evaluation: TrustEvaluation, sent: [Certificate], staple: [UInt8]?, given: [UInt8]? = nil, policy: RevocationPolicy, mayFetch: Bool = true,
        fetch: (RevocationRequest) throws -> [UInt8]
    ) -> RevocationReport {
        var report = RevocationReport(policy: policy)
        report.mustStaple = sent.first?.mustStaple ?? false
        let fetching = policy != .off && mayFetch && (evaluation.verdict.isTrusted || evaluation.reachesTrustedAnchor)
        report.notFetched = !fetching
        if !fetching && policy != .off {
            var addresses: [String] = []
            for certificate in sent {
                for url in certificate.ocspResponders + certificate.crlURLs where !addresses.contains(url) { addresses.append(url) }
            }
            report.addressesNotAsked = addresses
        }
        let path = issuerPath(evaluation, sent: sent)
        // A leaf whose issuer is nowhere on the path cannot be checked: under hard-fail that is
        // an unknown status, not a pass.
        if path.isEmpty, let leaf = sent.first, !leaf.isSelfSigned, fetching {
            report.unresolved.append(.init(subject: leaf.subject, depth: 0, namesASource: !leaf.ocspResponders.isEmpty || !leaf.crlURLs.isEmpty))
        }
        let time = evaluation.time
        // Every CRL fetched so far takes part in each CRL evaluation (a CRL partitioned by
        // reasons is whole only with its other part). From the anchor down: a CA's status is
        // learnt before its CRLs are read, and an indirect CRL issuer or a CA's new key, whose
        // own path is checked too, finds the CRLs above it already fetched.
        var fetchedLists: [RevocationList] = []
        for (depth, link) in path.enumerated().reversed() {
            let (certificate, issuer) = link
            var decided = false
            func record(_ check: RevocationCheck) {
                report.checks.append(check)
                if check.status == .good || check.status == .revoked { decided = true }
            }
            if depth == 0, let staple {
                record(certificate.readOCSP(staple, issuer: issuer, depth: 0, source: .staple, at: time))
            }
            if depth == 0, !decided, let given {
                record(certificate.readOCSP(given, issuer: issuer, depth: 0, source: .ocspFile, at: time))
            }
            let responders = Array(certificate.ocspResponders.prefix(2))
            let crls = Array(certificate.crlURLs.prefix(2))
            if fetching {
                for url in responders where !decided {
                    guard let body = certificate.ocspRequest(issuer: issuer) else { break }
                    do {
                        let answer = try fetch(.ocsp(url: url, request: body))
                        record(certificate.readOCSP(answer, issuer: issuer, depth: depth, source: .ocsp, url: url, at: time))
                    } catch {
                        record(RevocationCheck(source: .ocsp, url: url, subject: certificate.subject, depth: depth, problem: "\(error)"))
                    }
                }
                for url in crls where !decided {
                    do {
                        let answer = try fetch(.crl(url: url))
                        guard let lists = try? RevocationList.parse(answer) else {
                            record(RevocationCheck(source: .crl, url: url, subject: certificate.subject, depth: depth, problem: "the CRL cannot be read"))
                            continue
                        }
                        // Its delta CRL, where the certificate or the CRL names one (freshestCRL):
                        // at most one fetch; without it the complete CRL decides alone.
                        var own = lists
                        let deltaURLs = certificate.deltaCRLURLs + lists.flatMap(\.deltaCRLURLs)
                        if let deltaURL = deltaURLs.first(where: { !crls.contains($0) }),
                            let deltas = try? RevocationList.parse(try fetch(.crl(url: deltaURL)))
                        {
                            own += deltas
                        }
                        fetchedLists += own.filter { !fetchedLists.contains($0) }
                        record(crlCheck(evaluation, sent: sent, own: own, all: fetchedLists, depth: depth, url: url))
                    } catch {
                        record(RevocationCheck(source: .crl, url: url, subject: certificate.subject, depth: depth, problem: "\(error)"))
                    }
                }
            }
            if !decided, fetching {
                report.unresolved.append(.init(subject: certificate.subject, depth: depth, namesASource: !responders.isEmpty || !crls.isEmpty))
            }
        }
        if staple != nil { report.stapled = true }
        // Leaf first, each certificate's answers in the order asked.
        report.checks = report.checks.enumerated().sorted { ($0.element.depth, $0.offset) < ($1.element.depth, $1.offset) }.map(\.element)
        report.unresolved.sort { $0.depth < $1.depth }
        return report
    }

    /// What the CRLs fetched say about the certificate at `depth`: read with this URL's CRLs
    /// alone and with every CRL fetched so far (a CRL partitioned by reasons is whole only with
    /// its other part; a forged CRL fetched elsewhere must not stand in for this one). A usable
    /// answer wins over none, and "revoked" over "good".
    static func crlCheck(
        _ evaluation: TrustEvaluation, sent: [Certificate], own: [RevocationList], all: [RevocationList], depth: Int, url: String
    ) -> RevocationCheck {
        func at(_ lists: [RevocationList]) -> RevocationCheck? {
            let checks = CRLEvaluation.check(path: evaluation.verifiedChain, others: sent, lists: lists, at: evaluation.time, source: .crl, url: url)
            return depth < checks.count ? checks[depth] : nil
        }
        let alone = at(own)
        let together = all.count > own.count ? at(all) : nil
        let answers = [alone, together].compactMap { $0 }
        if let revoked = answers.first(where: { $0.status == .revoked }) { return revoked }
        if let usable = answers.first(where: { $0.status != nil }) { return usable }
        return alone ?? RevocationCheck(source: .crl, url: url, subject: "", depth: depth, problem: "the certificate is not on the verified path")
    }

    /// Each certificate with its issuer, leaf first, up to (not including) the anchor: the verified
    /// path when a CA vouches for it, else the sent certificates each signed by the next.
    static func issuerPath(_ evaluation: TrustEvaluation, sent: [Certificate]) -> [(Certificate, Certificate)] {
        if evaluation.verdict.isTrusted || evaluation.reachesTrustedAnchor {
            let chain = evaluation.verifiedChain
            return chain.count < 2 ? [] : (0..<(chain.count - 1)).map { (chain[$0], chain[$0 + 1]) }
        }
        var path: [(Certificate, Certificate)] = []
        guard var current = sent.first else { return [] }
        while path.count < 8, !current.isSelfSigned,
            let issuer = sent.first(where: { $0 != current && current.isIssued(byNameOf: $0) && current.isSignatureVerified(byKeyOf: $0) })
        {
            path.append((current, issuer))
            if path.contains(where: { $0.0 == issuer }) { break }
            current = issuer
        }
        return path
    }
}

/// One fetch the revocation check asks of its caller.
public enum RevocationRequest: Sendable, Hashable {
    /// POST `request` (application/ocsp-request) to `url`.
    case ocsp(url: String, request: [UInt8])
    /// GET the CRL at `url`.
    case crl(url: String)

    /// The URL to fetch from.
    public var url: String {
        switch self {
        case .ocsp(let url, _), .crl(let url): url
        }
    }
}

extension RevocationCheck.Source {
    var words: String {
        switch self {
        case .staple: "OCSP answer the server stapled"
        case .ocsp: "CA's OCSP responder"
        case .crl: "CA's CRL"
        case .ocspFile: "OCSP response given"
        case .crlFile: "CRL given"
        }
    }
}

extension TrustEvaluation {
    /// This evaluation with the given CRLs' checks (`--crl-file`, ``CRLEvaluation``) attached: a
    /// revoked certificate is untrusted, and so is one no given CRL covers, or whose CRL cannot be
    /// used (what the user gave is what must decide: nothing is fetched to fill a gap).
    func requiring(givenCRLs checks: [RevocationCheck]) -> TrustEvaluation {
        var report = revocation ?? RevocationReport(policy: .off)
        report.checks += checks
        var evaluation = requiring(revocation: report)
        let uncovered = checks.filter { $0.status == nil }.map { check in
            let who = check.depth == 0 ? "the server certificate" : "the certificate at depth \(check.depth) (\(check.subject))"
            return TrustReason(
                code: .noCRL, message: "No CRL given can be used for \(who): \(check.problem ?? "none covers it").", depth: check.depth, subject: check.subject)
        }
        if !uncovered.isEmpty { evaluation.verdict = .untrusted(evaluation.verdict.reasons + uncovered) }
        return evaluation
    }

    /// This evaluation with `report` attached and its reasons added: a revoked certificate, or
    /// one whose status a hard-fail policy could not learn, is untrusted whatever else vouches for it.
    /// Checks already attached (the CRLs given offline) are kept, before the report's.
    public func requiring(revocation report: RevocationReport) -> TrustEvaluation {
        var evaluation = self
        var report = report
        if let earlier = revocation, !report.checks.starts(with: earlier.checks) {
            report.checks = earlier.checks + report.checks
        }
        evaluation.revocation = report
        let reasons = report.reasons.filter { !evaluation.verdict.reasons.contains($0) }
        guard !reasons.isEmpty else { return evaluation }
        evaluation.verdict = .untrusted(evaluation.verdict.reasons + reasons)
        return evaluation
    }
}
