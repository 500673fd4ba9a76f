public import FoundationEssentials
public import VigilCertificates
public import VigilHTTP

/// `vigil server check URL`: the server's own TLS setup, outside in. The certificate as `inspect`
/// judges it (with an expiry threshold), then the scan of versions and suites (``TLSScan``) and
/// what they allow (``TLSFindings``). Connect-only handshakes: no request, no credential, ever.
public struct ServerCheck: Sendable {
    /// What was found, as the JSON report says it (docs/cli.md).
    public struct Report: Sendable, Codable {
        /// The report's format (1).
        public var schemaVersion = 1
        /// The server, `https://host[:port]`.
        public var server: String
        /// When the check ran (ISO 8601).
        public var checkedAt: String
        /// The way the handshakes went (a proxy and why, or direct).
        public var via: String?
        /// The TLS connections the check opened (the HTTP requests' one or two aside).
        public var connections: Int = 0
        /// The certificate: trusted or not, why not, and when it expires.
        public var certificate: Certificate
        /// Each version, oldest first, with the suites accepted in it.
        public var versions: [TLSScan.Version]
        /// Every finding, the most serious first.
        public var findings: [ServerFinding]
        /// What the cloud says of itself in status.php; nil when it is not one (or was not asked).
        public var cloud: Cloud?
        /// Why the HTTP checks were not made (an untrusted certificate, status.php unreadable); nil when they were.
        public var httpNotChecked: String?
        /// HSTS as the answer to status.php sent it; nil when it sent none (or was not asked).
        public var hsts: HSTS?
        /// The Mozilla profile held to (`intermediate`, guideline `5.7`); nil when none was.
        public var profile: String?
        /// The date of the advisories snapshot the version was held against; nil when none was.
        public var advisories: String?
        /// The grade, A+ to F, and the findings that set it (``ServerRating``).
        public var rating: ServerRating

        /// The certificate part of the report.
        public struct Certificate: Sendable, Codable {
            /// Whether the chain is trusted for the server's name.
            public var trusted: Bool
            /// Why not, when not.
            public var reasons: [String]
            /// The leaf's subject.
            public var subject: String
            /// The leaf's SHA-256 fingerprint.
            public var sha256: String
            /// The leaf's notAfter (ISO 8601).
            public var notAfter: String?
        }

        /// The most serious level found; nil when nothing was.
        public var worst: ServerFinding.Level? { findings.map(\.level).max() }
    }

    /// How the handshakes are made.
    public var probe: TLSProbe
    /// What judges the certificate.
    public var evaluator: TrustEvaluator
    /// A certificate that expires within this many days is a warning.
    public var expiryWarningDays = 30
    /// The Mozilla profile the server is held to; nil: none.
    public var profile: TLSProfile?
    /// The end-of-life dates and advisories the cloud's version is held against; nil: none.
    public var advisories: AdvisorySnapshot?
    /// Also ask plain http on this port, which should redirect to https; nil: not asked.
    public var httpPort: Int?
    /// The most connections open at once (versions scanned side by side).
    public var connectionsAtOnce = 2
    /// The most connections started per second.
    public var connectionsPerSecond = 200
    /// The whole check's bound, past which it stops with ``ServerCheckError/Code/deadline``.
    public var deadline: Duration = .seconds(120)

    /// A check through `probe`, judging the certificate with `evaluator`.
    public init(probe: TLSProbe, evaluator: TrustEvaluator) {
        self.probe = probe
        self.evaluator = evaluator
    }

    /// Checks `url`'s server. Throws ``ServerCheckError`` when it cannot be checked at all.
    public func run(_ url: String, now: Date = Date()) async throws -> Report {
        guard url.lowercased().hasPrefix("https://"), let endpoint = try? Endpoint(url: url), let parts = URLComponents(string: url) else {
            throw ServerCheckError(.invalidURL, "\(url) is not an https URL.")
        }
        guard parts.user == nil, parts.password == nil, parts.query == nil, parts.fragment == nil else {
            throw ServerCheckError(.invalidURL, "give the server's URL without a user, a password, a query or a fragment: nothing is ever sent to log in.")
        }
        // The cloud's path (https://host/owncloud), without a trailing slash or status.php.
        var path = parts.percentEncodedPath
        if path.hasSuffix("/status.php") { path.removeLast("/status.php".count) }
        while path.hasSuffix("/") { path.removeLast() }
        let base = path
        let (deadline, pacer) = (self.deadline, ConnectionPacer(perSecond: connectionsPerSecond))
        // The whole check against its deadline: the first to end wins, the other is cancelled
        // (a handshake under way is broken off by its transfer's cancellation).
        return try await withThrowingTaskGroup(of: Report?.self) { group in
            group.addTask { try await self.check(endpoint, path: base, pacer: pacer, now: now) }
            group.addTask {
                try await Task.sleep(for: deadline)
                return nil
            }
            defer { group.cancelAll() }
            guard let report = try await group.next() ?? nil else {
                let opened = await pacer.opened
                throw ServerCheckError(
                    .deadline, "the check of \(endpoint) took longer than \(deadline.components.seconds) s (\(opened) connections opened); nothing was judged.")
            }
            return report
        }
    }

    func check(_ endpoint: Endpoint, path: String, pacer: ConnectionPacer, now: Date) async throws -> Report {
        let handshake: TLSProbe.Handshake
        do {
            try await pacer.admit()
            handshake = try await probe.handshake(with: endpoint)
        } catch let error as HTTPError where error.code != .cancelled {
            throw ServerCheckError(error, scanning: false)
        }
        let evaluation = evaluator.evaluate(handshake.chain, for: endpoint.peerName)
        let leaf = handshake.chain.first
        var findings: [ServerFinding] = []
        if !evaluation.verdict.isTrusted {
            findings.append(
                ServerFinding(
                    "certificate-untrusted", .error,
                    "The certificate is not trusted: " + evaluation.verdict.reasons.map(\.message).joined(separator: " ")))
        } else if let notAfter = leaf?.notAfter, notAfter.timeIntervalSince(now) < Double(expiryWarningDays) * 86_400 {
            findings.append(
                ServerFinding(
                    "certificate-expires-soon", .warning, "The certificate expires on \(notAfter.formatted(.iso8601)), in under \(expiryWarningDays) days."))
        }
        // A certificate that names an OCSP responder, and no stapled answer: every client must
        // ask the CA itself (slower, and the CA learns who visits).
        if let leaf, !leaf.ocspResponders.isEmpty, handshake.staple == nil {
            findings.append(
                ServerFinding(
                    "no-ocsp-stapling", .notice, "The server staples no OCSP answer; its certificate names a responder each client must then ask itself.",
                    nginx: "ssl_stapling on; ssl_stapling_verify on;", apache: "SSLUseStapling on"))
        }
        var scan = TLSScan(probe: probe, pacer: pacer)
        scan.connectionsAtOnce = connectionsAtOnce
        let versions: [TLSScan.Version]
        do { versions = try await scan.run(endpoint) } catch let error as HTTPError where error.code != .cancelled {
            // The server answered the first handshake and then stopped answering, or the proxy
            // stopped letting the scan through: the check could not be made, said by its code.
            throw ServerCheckError(error, scanning: true)
        }
        findings += TLSFindings.judge(versions)
        var http = HTTPSide(problem: "the certificate is not trusted: nothing is sent to it")
        if evaluation.verdict.isTrusted {
            http = await self.http(endpoint, path: path)
            findings += http.findings
            if let advisories, let cloud = http.cloud {
                findings += advisories.findings(product: cloud.product, version: cloud.version, now: now)
            }
        }
        if let profile {
            let facts = leaf.map { leaf in
                let key = leaf.summary(at: now).publicKey
                let days = leaf.notBefore.flatMap { start in leaf.notAfter.map { Int($0.timeIntervalSince(start) / 86_400) } }
                return TLSProfile.CertificateFacts(keyAlgorithm: key.algorithm, keyBits: key.bits, lifespanDays: days)
            }
            findings += profile.deviations(versions: versions, certificate: facts, hstsMaximumAge: http.hsts.map { $0.maxAge ?? 0 })
        }
        return Report(
            server: endpoint.description + path, checkedAt: now.formatted(.iso8601), via: handshake.via?.description, connections: await pacer.opened,
            certificate: .init(
                trusted: evaluation.verdict.isTrusted, reasons: evaluation.verdict.reasons.map(\.message), subject: leaf?.subject ?? "",
                sha256: leaf?.sha256Fingerprint ?? "", notAfter: leaf?.notAfter.map { $0.formatted(.iso8601) }),
            versions: versions,
            // The most serious first; in found order within a level (never a hash table's).
            findings: findings.enumerated().sorted { $0.element.level != $1.element.level ? $0.element.level > $1.element.level : $0.offset < $1.offset }
                .map(\.element), cloud: http.cloud, httpNotChecked: http.problem, hsts: http.hsts,
            profile: profile.map { "\($0.name) (Mozilla guideline \($0.guideline); oldest clients: \($0.oldestClients.joined(separator: ", ")))" },
            advisories: advisories?.compiled,
            rating: ServerRating(findings, httpChecked: http.problem == nil))
    }
}
