import FoundationEssentials
import Glibc
public import VigilCertificates

/// `connection.revocation-policy` at work: reads the staple, fetches the CA's OCSP answers and
/// CRLs (plain HTTP allowed, as every client does: the answers are signed), bounded in time and
/// size, and cached by their validity. The decision itself is ``VigilCertificates/RevocationReport``'s.
public struct RevocationChecker: Sendable {
    /// What an unknown revocation status means (soft-fail by default).
    public var policy: RevocationPolicy
    /// Per fetch (connect, transfer); the whole check gets twice this.
    public var timeout: Duration
    /// The largest OCSP answer and CRL read.
    public var maximumOCSPSize = 64 * 1024
    /// The largest CRL read, in bytes.
    public var maximumCRLSize = 16 * 1024 * 1024
    /// Which proxy the fetches go through (`connection.proxy`, the PAC file, the environment).
    public var proxy = ProxyConfiguration()

    /// Soft-fail by default, as the setting (docs/trust.md says why).
    public init(policy: RevocationPolicy = .softFail, timeout: Duration = .seconds(5)) {
        self.policy = policy
        self.timeout = timeout
    }

    /// `evaluation` with its revocation report and reasons (blocking: it may fetch).
    /// `mayFetch`: the chain is trusted or approved, so the URLs it names may be asked.
    public func apply(to evaluation: TrustEvaluation, sent: [Certificate], staple: [UInt8]?, given: [UInt8]? = nil, mayFetch: Bool) -> TrustEvaluation {
        let deadline = ContinuousClock.now + timeout * 2
        var asked: [RevocationRequest] = []
        let report = RevocationReport.check(evaluation, sent: sent, staple: staple, given: given, policy: policy, mayFetch: mayFetch) { request in
            asked.append(request)
            return try fetch(request, deadline: deadline)
        }
        // Each fetch gave exactly one check: its own URL's, in the order asked.
        var fetched = report.checks.filter { $0.source == .ocsp || $0.source == .crl }
        var answers: [(RevocationRequest, RevocationCheck)] = []
        for request in asked {
            let isOCSP = if case .ocsp = request { true } else { false }
            guard let index = fetched.firstIndex(where: { $0.url == request.url && ($0.source == .ocsp) == isOCSP }) else { continue }
            answers.append((request, fetched.remove(at: index)))
        }
        RevocationCache.shared.settle(answers, now: Date())
        return evaluation.requiring(revocation: report)
    }

    /// ``apply(to:sent:staple:given:mayFetch:)`` on a thread of its own, for async callers.
    public func apply(to evaluation: TrustEvaluation, sent: [Certificate], staple: [UInt8]?, given: [UInt8]? = nil, mayFetch: Bool) async -> TrustEvaluation {
        let checker = self
        return
            (try? await TransferCancellation.onThread(named: "vigil-revocation") { _ in
                checker.apply(to: evaluation, sent: sent, staple: staple, given: given, mayFetch: mayFetch)
            }) ?? evaluation.requiring(revocation: RevocationReport(policy: policy))
    }

    /// The system trust store, for https responders: loading it costs more than a fetch.
    static let systemStore = try? TrustEvaluator()

    func fetch(_ request: RevocationRequest, deadline: ContinuousClock.Instant) throws -> [UInt8] {
        let now = Date()
        if let cached = RevocationCache.shared.answer(for: request, now: now) { return try cached.get() }
        let left = deadline - ContinuousClock.now
        guard left > .milliseconds(100) else { throw RevocationFetchError("the time for revocation checks (\(timeout * 2)) was spent") }
        var configuration = HTTPClient.Configuration()
        configuration.allowPlainHTTP = true
        configuration.timeout = min(timeout, left)
        configuration.proxy = proxy
        let http: HTTPRequest
        switch request {
        case .ocsp(let url, let body):
            configuration.maximumBodySize = maximumOCSPSize
            http = HTTPRequest(method: "POST", url: url, headers: [("Content-Type", "application/ocsp-request")], body: body)
        case .crl(let url):
            configuration.maximumBodySize = maximumCRLSize
            http = HTTPRequest(url: url)
        }
        // An https responder is judged by the system store (loaded once per process, and only
        // then: parsing its 140-odd roots costs more than the fetch), without revocation of its
        // own. A plain-HTTP responder (almost all are: OCSP and CRLs are signed) has no handshake
        // to judge, so the policy is never asked.
        let policy: any TLSTrustPolicy
        if URLParts(http.url)?.scheme == "https" {
            guard let systemStore = Self.systemStore else { throw RevocationFetchError("the system trust store cannot be loaded") }
            policy = EvaluatorTrustPolicy(evaluator: systemStore, revocation: RevocationChecker(policy: .off))
        } else {
            policy = NoHandshakePolicy()
        }
        let client = HTTPClient(policy: policy, configuration: configuration)
        let result: Result<[UInt8], RevocationFetchError>
        do {
            let response = try client.blockingSend(http)
            result =
                (200..<300).contains(response.status) && !response.body.isEmpty
                ? .success(response.body) : .failure(RevocationFetchError("the server answered HTTP \(response.status)"))
        } catch let error as HTTPError {
            if let challenge = error.proxyChallenge, !challenge.tunnelled {
                // A 407 to a plain-http fetch is never answered (the server behind the proxy could
                // have written it): no password to keep, the proxy's to allow.
                result = .failure(
                    RevocationFetchError(
                        "the proxy \(challenge.proxy) asks for a login (407) for plain-http fetches, which Vigil never answers (the server behind a proxy could have written it); the proxy's administrator can let OCSP and CRL fetches through without one"
                    ))
            } else {
                result = .failure(RevocationFetchError(error.reason))
            }
        }
        RevocationCache.shared.store(result, for: request, now: now)
        return try result.get()
    }
}

/// Why a revocation source gave nothing.
struct RevocationFetchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The policy of a plain-HTTP fetch, which has no handshake: were it ever asked, it refuses.
struct NoHandshakePolicy: TLSTrustPolicy {
    func decide(chain: [Certificate], negotiated: TLSProtocolVersion?, for endpoint: Endpoint) -> TLSDecision {
        let reason = TrustReason(code: .noCertificate, message: "\(endpoint): a plain-HTTP revocation fetch has no certificate to trust.")
        return .refused(TrustEvaluator.refusal(reason, peerName: endpoint.peerName))
    }

    func decide(_ decision: TLSDecision, chain: [Certificate], staple: [UInt8]?, for endpoint: Endpoint) -> TLSDecision { decision }
}
