internal import CCurl
import FoundationEssentials
import Glibc
public import Logging
import VigilCertificates
import VigilLogging
import VigilText

/// HTTP/1.1 over libcurl (OpenSSL backend) with the TLS decision taken by a ``TLSTrustPolicy``
/// inside the handshake: when the policy refuses the chain, the handshake is aborted and not one
/// byte of the request (headers, credentials, body) leaves the machine.
///
/// It never follows a redirect: a 3xx comes back with a ``Redirect`` (downgrade and host change
/// marked) for the caller to report and approve. Every connection is judged in its full handshake
/// (no TLS session resumption). By default every request has a connection of its own; a client
/// from ``keepingConnections()`` sends the next request to the same origin on the connection it
/// kept, and only after judging that connection's chain, protocol and revocation again with its
/// current policy (no request rides on a decision another policy made). Plain `http://` is
/// refused unless ``Configuration/allowPlainHTTP``.
public struct HTTPClient: Sendable {
    /// What a client may do and how far it waits; the defaults are the settings' defaults.
    public struct Configuration: Sendable {
        /// Connect, handshake and transfer, all together.
        public var timeout: Duration = .seconds(30)
        /// The largest answer body read; a larger one fails with ``HTTPError/Code/bodyTooLarge``.
        public var maximumBodySize = 64 * 1024 * 1024
        /// Plain `http://` URLs are sent too; otherwise they fail with ``HTTPError/Code/plainHTTPRefused``.
        public var allowPlainHTTP = false
        /// Names pinned to addresses (curl's `--resolve`).
        public var resolve: [HostResolution] = []
        /// The oldest TLS version offered (`connection.minimum-tls-version`).
        public var minimumTLSVersion: TLSProtocolVersion = .tls12
        /// The `User-Agent` of every request (`http.user-agent`, its placeholders filled in).
        public var userAgent = "Vigil"
        /// `log.http-requests`: each request and answer logged (info, tag `http`) through
        /// ``VigilLogging/HTTPLogRedactor``: the Authorization scheme only, cookie names only,
        /// secret parameters, form and JSON fields and URL passwords redacted, bodies cut.
        public var logExchanges = false
        /// `core.cookie-support-enabled`: cookies kept for the client's origins (shared by its
        /// copies), and an access-policy manager's login round trip followed; nil: no cookies.
        public var cookies: CookieJar?
        /// Mutual TLS: the account's client certificate, presented only on connections to its
        /// origin, and there only once the server's chain and revocation status were judged
        /// acceptable (the decision is taken when OpenSSL is about to send it).
        public var clientIdentity: ClientIdentityBinding?
        /// An access proxy's service token: header fields added to every request to its origin
        /// (over https), to no other host, never to a proxy (CONNECT) and never logged.
        public var accessHeaders: AccessHeadersBinding?
        /// Which proxy (`connection.proxy`, `connection.proxy-autoconfig-url`, the environment),
        /// and the credentials kept for proxies.
        public var proxy = ProxyConfiguration()

        /// The defaults: 30-second timeout, 64 MiB bodies, https only, TLS 1.2 or later, no cookies, no client certificate.
        public init() {}
    }

    /// Decides in every handshake whether the server's chain may carry the request.
    public var policy: any TLSTrustPolicy
    /// Timeouts, limits, cookies, client certificate and access headers.
    public var configuration: Configuration
    /// Where requests (debug) and, with ``Configuration/logExchanges``, redacted exchanges (info) are logged.
    public var logger: Logger

    /// Where a client from ``keepingConnections()`` keeps its idle connection; nil: none kept.
    let slot: ConnectionSlot?

    /// A client judging every connection with `policy`.
    public init(policy: any TLSTrustPolicy, configuration: Configuration = .init(), logger: Logger = Logger(label: "vigil.http")) {
        self.policy = policy
        self.configuration = configuration
        self.logger = logger
        slot = nil
    }

    init(_ client: HTTPClient, slot: ConnectionSlot) {
        policy = client.policy
        configuration = client.configuration
        logger = client.logger
        self.slot = slot
    }

    /// This client, keeping one https connection (through the same proxy, if any) between its requests, for a
    /// command's several requests to one server (a PROPFIND, then a GET): one handshake instead of
    /// one per request. Before a request goes on the kept connection, the policy judges again the
    /// chain and the revocation status that connection's handshake showed; a connection it now
    /// refuses is closed, and the request gets a new one (and a new handshake, judged as ever).
    /// The client's copies share the connection; it is closed when the last copy goes.
    public func keepingConnections() -> HTTPClient { HTTPClient(self, slot: ConnectionSlot()) }

    /// Sends `request` on a thread of its own (libcurl blocks) and returns the answer.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        // Every request says who sends it and carries a fresh id the server's logs can be
        // searched for (the seeds' request tracing); the id is in Vigil's log line too.
        var request = request
        if !request.headers.contains(where: { $0.name.lowercased() == "user-agent" }) {
            request.headers.append((name: "User-Agent", value: configuration.userAgent))
        }
        if let binding = configuration.accessHeaders, let parts = URLParts(request.url), parts.scheme == "https",
            binding.covers(Endpoint(host: parts.host, port: parts.port))
        {
            binding.headers.withFields { fields in
                for field in fields where !request.headers.contains(where: { $0.name.lowercased() == field.name.lowercased() }) {
                    request.headers.append(field)
                }
            }
        }
        let requestID: String
        if let given = request.headers.first(where: { $0.name.lowercased() == "x-request-id" })?.value {
            requestID = given
        } else {
            requestID = UUID().uuidString
            request.headers.append((name: "X-Request-ID", value: requestID))
        }
        var answer = try await exchange(request, id: requestID).response
        // An access-policy manager in front of the server: a redirect on the same https origin to
        // its login, which sets a session cookie and sends the client back. Followed only with a
        // cookie jar, only on the same origin, only as that round trip (the hop carries cookies,
        // never the request's credentials), at most twice; then the request is sent again.
        // Sent again only when that is safe: a request that changes nothing (GET, HEAD, PROPFIND
        // without a body), or a POST the APM sends back to exactly where it was going (it bounced
        // the request before the server saw it). PUT, DELETE, MOVE and the like never.
        let method = request.method.uppercased()
        let repeatable = ["GET", "HEAD", "PROPFIND"].contains(method) && (request.body ?? []).isEmpty
        var rounds = 0
        while configuration.cookies != nil, repeatable || method == "POST", rounds < 2, let redirect = answer.redirect,
            Self.isCookieRoundTrip(redirect, from: request.url)
        {
            let hop = try await exchange(
                HTTPRequest(url: redirect.location, headers: request.headers.filter { ["user-agent", "x-request-id"].contains($0.name.lowercased()) }),
                id: requestID)
            guard hop.cookiesSet > 0, let back = hop.response.redirect, Self.isCookieRoundTrip(back, from: redirect.location),
                repeatable || Self.sameTarget(back.location, request.url)
            else {
                // A gateway's hold, not a server's redirect: the hop was asked to send the client
                // back to where it was going (the target in its query), and did not.
                answer.heldByAccessGateway = Self.carriesReturnTarget(redirect.location, original: request.url)
                break
            }
            rounds += 1
            answer = try await exchange(request, id: requestID).response
        }
        return answer
    }

    /// Whether `location`'s query names the path of `original` (as sent, or percent-encoded): what
    /// an access gateway's login or hold page carries so as to send the client back.
    static func carriesReturnTarget(_ location: String, original: String) -> Bool {
        guard let query = URLComponents(string: location)?.percentEncodedQuery, let path = URLComponents(string: original)?.path, path.count > 1 else {
            return false
        }
        let decoded = PercentEncoding.decode(query) ?? query
        return decoded.contains(path) || (PercentEncoding.decode(decoded) ?? decoded).contains(path)
    }

    /// The same URL, path and query (the fragment aside).
    static func sameTarget(_ a: String, _ b: String) -> Bool {
        guard let x = URLComponents(string: a), let y = URLComponents(string: b) else { return false }
        return x.scheme?.lowercased() == y.scheme?.lowercased() && x.host?.lowercased() == y.host?.lowercased() && x.port == y.port
            && x.percentEncodedPath == y.percentEncodedPath && x.percentEncodedQuery == y.percentEncodedQuery
    }

    /// Same https origin, no user information, another path: what an APM's login hop looks like.
    static func isCookieRoundTrip(_ redirect: Redirect, from url: String) -> Bool {
        guard !redirect.changesHost, !redirect.isDowngrade, !redirect.carriesUserInformation, redirect.location.lowercased().hasPrefix("https://") else {
            return false
        }
        return URLComponents(string: redirect.location)?.path != URLComponents(string: url)?.path
    }

    /// One request and its answer: cookies from the jar added, the answer's cookies kept, both
    /// logged when asked.
    func exchange(_ request: HTTPRequest, id requestID: String) async throws -> (response: HTTPResponse, cookiesSet: Int) {
        let client = self
        var request = request
        let parts = URLParts(request.url)
        let path = URLComponents(string: request.url)?.path ?? "/"
        if let jar = configuration.cookies, let parts, !request.headers.contains(where: { $0.name.lowercased() == "cookie" }),
            let cookie = jar.header(for: parts, path: path.isEmpty ? "/" : path)
        {
            request.headers.append((name: "Cookie", value: cookie))
        }
        var redactor = HTTPLogRedactor()
        redactor.secretHeaderNames = Set((configuration.accessHeaders?.headers.names ?? []).map { $0.lowercased() })
        let shownURL = redactor.redact(url: request.url)
        logger.privacy.debug("HTTP \(public: request.method) \(shownURL) [request \(public: requestID)]", metadata: ["tags": "http"])
        let prepared = request
        if configuration.logExchanges {
            let shown = redactor.request(
                method: request.method, url: request.url, headers: request.headers.map { ($0.name, $0.value) }, body: request.logsBodies ? request.body : nil)
            logger.privacy.info("HTTP exchange [request \(public: requestID)] sent:\n\(shown)", metadata: ["tags": "http"])
        }
        let response = try await TransferCancellation.onThread(named: "vigil-http") { cancellation in
            try client.blockingSend(prepared, cancellation: cancellation)
        }
        let cookiesSet = configuration.cookies.flatMap { jar in parts.map { jar.store(response.headers, from: $0, path: path.isEmpty ? "/" : path) } } ?? 0
        if configuration.logExchanges {
            let shown = redactor.response(
                status: response.status, headers: response.headers.map { ($0.name, $0.value) }, body: request.logsBodies ? response.body : [])
            logger.privacy.info("HTTP exchange [request \(public: requestID)] answered:\n\(shown)", metadata: ["tags": "http"])
        }
        logger.privacy.debug(
            "HTTP \(public: request.method) \(shownURL): \(public: response.status) [request \(public: requestID)]", metadata: ["tags": "http"])
        return (response, cookiesSet)
    }

    func blockingSend(_ request: HTTPRequest, cancellation: TransferCancellation = TransferCancellation()) throws -> HTTPResponse {
        guard let target = URLParts(request.url) else {
            throw HTTPError(.invalidURL, "The request URL is not an absolute http(s) URL.")
        }
        var (response, via) = try configuration.proxy.throughRoute(scheme: target.scheme, host: target.host, port: target.port) { choice, kept in
            try blockingSend(request, target: target, through: choice, kept: kept, cancellation: cancellation)
        }
        response.via = via
        return response
    }

    func blockingSend(_ request: HTTPRequest, target: URLParts, through proxy: ProxyChoice, kept: ProxyCredential?, cancellation: TransferCancellation) throws
        -> HTTPResponse
    {
        let secure = target.scheme == "https"
        guard secure || configuration.allowPlainHTTP else {
            throw HTTPError(.plainHTTPRefused, "http://\(target.host):\(target.port) is plain HTTP; only https is allowed.")
        }
        guard request.method.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), !request.method.isEmpty else {
            throw HTTPError(.invalidURL, "The request method is not a token.")
        }
        let endpoint = Endpoint(host: target.host, port: target.port)
        // The origin as errors name it: a plain-HTTP fetch (a revocation list, an OCSP responder)
        // is never called https.
        let origin = endpoint.origin(scheme: target.scheme)
        // The account's client certificate, loaded only for its own origin.
        let identity = configuration.clientIdentity.flatMap { $0.covers(endpoint) && secure ? $0.identity : nil }
        // A connection kept by an earlier request of this client: used only once this client's
        // policy has judged again what its handshake showed; otherwise closed, and a new one made.
        let key = KeptConnection.Key(
            endpoint: endpoint, resolve: configuration.resolve, minimumTLSVersion: configuration.minimumTLSVersion,
            identity: identity.map { $0.chain.first?.sha256Fingerprint ?? "an identity without a chain" }, proxy: proxy.identity?.description)
        // Only requests that change nothing: libcurl sends a request again on a new connection
        // when a kept one turns out dead before any answer, and a PUT or a POST must never go twice.
        let keepable = secure && slot != nil && ["GET", "HEAD", "PROPFIND", "OPTIONS"].contains(request.method)
        var reused: (connection: KeptConnection, decision: TLSDecision, exchange: ClientCertificateExchange?)?
        if keepable, let kept = slot?.take(matching: key), let decision = Self.judgeAgain(kept.capture, policy: policy, endpoint: endpoint) {
            // What the kept connection's handshake said of the client certificate, then forgotten:
            // only a new handshake sets it again (a failure on the kept connection is no refusal).
            reused = (kept, decision, ClientCertificateExchange.captured(kept.capture))
            vigil_tls_capture_forget_exchange(kept.capture)
        }
        let handle: UnsafeMutableRawPointer
        let capture: UnsafeMutablePointer<vigil_tls_capture>
        if let reused {
            handle = reused.connection.handle
            capture = reused.connection.capture
            // Every option back to its default (set again below); the live connection stays.
            vigil_curl_easy_reset(handle)
        } else {
            handle = try TLSProbe.curlHandle()
            capture = UnsafeMutablePointer<vigil_tls_capture>.allocate(capacity: 1)
            capture.initialize(to: vigil_tls_capture())
        }
        // Kept for the next request: put in the slot last, once every other defer below has run
        // (the capture points at no transfer, the handle at no list or buffer of this one).
        var keeping: KeptConnection?
        defer {
            if let keeping, let slot {
                vigil_curl_easy_reset(keeping.handle)
                keeping.capture.pointee.decide = nil
                keeping.capture.pointee.decide_status = nil
                keeping.capture.pointee.context = nil
                slot.keep(keeping)
            }
        }
        // Who owns the handle and the capture: a kept connection (closed when it goes, unless the
        // slot keeps it for the next request), or this function (released here).
        var owner = reused?.connection
        defer {
            if owner == nil {
                vigil_curl_easy_cleanup(handle)
                vigil_tls_capture_release(capture)
                capture.deallocate()
            }
        }

        let transfer = Transfer(policy: policy, endpoint: endpoint, maximumBodySize: configuration.maximumBodySize)
        let context = Unmanaged.passRetained(transfer)
        defer { context.release() }
        // The capture may outlive this transfer (a kept connection): it never points at it after.
        defer { capture.pointee.context = nil }
        capture.pointee.decide = Self.decide
        capture.pointee.context = context.toOpaque()
        capture.pointee.decide_status = Self.decideStatus
        if let identity {
            transfer.presentsIdentity = true
            // A kept connection presented it in its handshake already.
            guard reused != nil || Self.load(identity, into: capture) else {
                throw HTTPError(.transport, "The account's client certificate cannot be handed to OpenSSL.")
            }
        }
        if secure, vigil_curl_capture_tls(handle, capture) != CURLE_OK {
            throw HTTPError(.transport, "libcurl does not accept an OpenSSL context callback (is it built with OpenSSL?).")
        }
        // One connection at most in the handle's cache: a kept handle's connection is the last
        // one its hooks judged.
        try Curl.set(handle, CURLOPT_MAXCONNECTS, 1)
        // The proxy, chosen here as curl would, so that an https proxy is verified before it
        // receives a proxy password, and an http proxy with one is refused.
        // A plain-HTTP request (only ever without credentials) gets curl's own verification of
        // an https proxy: no SSL context callback is installed for it.
        let (proxyHost, offer) = try proxy.apply(
            to: handle, capture: secure ? capture : nil, kept: kept, environment: configuration.proxy.environment, tunnelled: secure)
        defer { free(proxyHost) }

        let resolveList = HostResolution.curlList(configuration.resolve)
        defer { vigil_curl_slist_free_all(resolveList) }
        if resolveList != nil { try Curl.set(handle, CURLOPT_RESOLVE, pointer: UnsafeMutableRawPointer(resolveList)) }
        var fields: UnsafeMutablePointer<curl_slist>?
        defer { vigil_curl_slist_free_all(fields) }
        for (name, value) in request.headers {
            // By bytes: "\r\n" is one Character, so a Character test would miss it.
            guard !name.isEmpty, !(name + value).utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }), !name.utf8.contains(0x3A) else {
                throw HTTPError(.invalidURL, "A request header has an invalid name or value.")
            }
            fields = vigil_curl_slist_append(fields, "\(name): \(value)")
        }
        fields = vigil_curl_slist_append(fields, "Expect:")  // no 100-continue round trip

        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let milliseconds = Int(configuration.timeout.components.seconds * 1000 + configuration.timeout.components.attoseconds / 1_000_000_000_000_000)
        let body = request.body ?? []
        let code: CURLcode = try errorBuffer.withUnsafeMutableBufferPointer { buffer in
            try Curl.set(handle, CURLOPT_ERRORBUFFER, pointer: buffer.baseAddress)
            try Curl.set(handle, CURLOPT_URL, text: target.text)
            try Curl.set(handle, CURLOPT_PROTOCOLS_STR, text: configuration.allowPlainHTTP ? "http,https" : "https")
            try Curl.set(handle, CURLOPT_FOLLOWLOCATION, 0)
            try Curl.set(handle, CURLOPT_NOSIGNAL, 1)
            try Curl.set(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
            try Curl.set(handle, CURLOPT_SSL_SESSIONID_CACHE, 0)
            try Curl.set(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
            try Curl.set(handle, CURLOPT_TIMEOUT_MS, milliseconds)
            try Curl.set(handle, CURLOPT_SSLVERSION, configuration.minimumTLSVersion.curlMinimum)
            // An answer that announces more than the limit is refused before its body is read.
            try Curl.set(handle, CURLOPT_MAXFILESIZE_LARGE, offset: curl_off_t(configuration.maximumBodySize))
            // Peer verification on, so that OpenSSL aborts the handshake when the policy refuses;
            // the policy's callback replaces OpenSSL's chain check, and checks the host name itself.
            try Curl.set(handle, CURLOPT_SSL_VERIFYPEER, 1)
            try Curl.set(handle, CURLOPT_SSL_VERIFYHOST, 0)
            // No CA file or directory for libcurl to load into OpenSSL's store: the policy's
            // evaluator holds the anchors, and the store would go unread, yet libcurl parsed the
            // whole system bundle (140-odd roots) on every connection.
            try Curl.set(handle, CURLOPT_CAINFO, pointer: nil)
            try Curl.set(handle, CURLOPT_CAPATH, pointer: nil)
            try Curl.set(handle, CURLOPT_HTTPHEADER, pointer: UnsafeMutableRawPointer(fields))
            // The request's fields go to the server only, never in a proxy's CONNECT.
            try Curl.set(handle, CURLOPT_HEADEROPT, Int(CURLHEADER_SEPARATE))
            try Curl.check(
                vigil_curl_setopt_callback(handle, CURLOPT_WRITEFUNCTION, Self.receiveBody, CURLOPT_WRITEDATA, context.toOpaque()), CURLOPT_WRITEFUNCTION)
            try Curl.check(
                vigil_curl_setopt_callback(handle, CURLOPT_HEADERFUNCTION, Self.receiveHeader, CURLOPT_HEADERDATA, context.toOpaque()), CURLOPT_HEADERFUNCTION)
            switch request.method {
            case "GET" where body.isEmpty: break
            case "HEAD" where body.isEmpty: try Curl.set(handle, CURLOPT_NOBODY, 1)
            default:
                try Curl.set(handle, CURLOPT_CUSTOMREQUEST, text: request.method)
                if !body.isEmpty || request.method == "POST" || request.method == "PUT" {
                    try Curl.set(handle, CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(body.count))
                    try body.withUnsafeBufferPointer { bytes in
                        // COPYPOSTFIELDS copies, so the buffer need not outlive this call.
                        try Curl.set(
                            handle, CURLOPT_COPYPOSTFIELDS, pointer: UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafePointer(bitPattern: 1)))
                    }
                }
            }
            try cancellation.watch(handle)
            return vigil_curl_easy_perform(handle)
        }
        if code == CURLE_ABORTED_BY_CALLBACK, cancellation.isCancelled { throw cancellation.error(endpoint) }
        if let proxyHost, capture.pointee.proxy_failed != 0 {
            throw ProxyChoice.untrusted(proxyHost)
        }
        // The proxy asked who we are (407 to CONNECT, or to a plain-HTTP request through it) and
        // had no credential it may be sent, or refused the one it was sent.
        if let refusal = ProxyChallenge.raised(
            on: handle, by: proxy.identity, answer: transfer.proxyAnswer, plainRequest: !secure, offer: offer, curlCode: code)
        {
            throw refusal
        }
        if let decision = transfer.decision, !decision.allowsRequest {
            var error = HTTPError(
                .untrustedCertificate,
                "\(endpoint): the certificate is not trusted; nothing was sent. "
                    + decision.evaluation.verdict.reasons.map(\.message).joined(separator: " "), curlCode: Int(code.rawValue))
            error.evaluation = decision.evaluation
            throw error
        }
        if transfer.tooLarge || code == CURLE_FILESIZE_EXCEEDED {
            throw HTTPError(.bodyTooLarge, "\(origin): the answer is larger than \(configuration.maximumBodySize) bytes.", curlCode: Int(code.rawValue))
        }
        // No new connection: the request went on the kept one (judged again before it was sent).
        var connects = 0
        try Curl.check(vigil_curl_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects), "the number of connections")
        // What this transfer's handshake said of the client certificate (none without one).
        let exchange = secure && connects > 0 ? ClientCertificateExchange.captured(capture) : nil
        guard code == CURLE_OK else {
            let tlsLayer = [CURLE_SSL_CONNECT_ERROR, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING].contains(code)
            if let refusal = exchange?.error(at: endpoint, identity: identity, curlCode: Int(code.rawValue), tlsFailure: tlsLayer) { throw refusal }
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var error = TLSProbe.error(for: code, detail: detail, origin: origin, notTLS: capture.pointee.not_tls != 0)
            if error.code == .handshakeFailed {
                error = HTTPError(
                    .handshakeFailed, error.reason + " Vigil offers TLS \(configuration.minimumTLSVersion.rawValue) or later (connection.minimum-tls-version).",
                    curlCode: Int(code.rawValue))
            }
            throw error
        }
        // No new connection: the request went on the kept one, which this client's policy judged
        // again before it was sent. A new one (the kept one had closed) was judged in its handshake.
        if secure, connects == 0 {
            guard let reused else {
                throw HTTPError(.handshakeFailed, "\(endpoint): the answer came on a connection this request did not judge; it is not used.")
            }
            transfer.decision = reused.decision
            transfer.statusJudged = true
        }
        if secure, transfer.decision == nil {
            throw HTTPError(.handshakeFailed, "\(endpoint): the connection was not judged by the trust policy.")
        }
        // An invariant, not a case: a handshake whose revocation was never judged (a resumed
        // session, a library that skipped the hook) gives no answer, whatever it said.
        if secure, !transfer.statusJudged {
            throw HTTPError(.handshakeFailed, "\(endpoint): the certificate's revocation status was not judged for this connection; its answer is not used.")
        }
        var status = 0
        try Curl.check(vigil_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status), "the response code")
        var response = HTTPResponse(status: status, headers: transfer.headers, body: transfer.body, tls: transfer.decision, redirect: nil)
        response.clientCertificate = connects == 0 ? reused?.exchange : exchange
        // nginx with `ssl_verify_client optional` lets the handshake finish and answers 400 with
        // its own page: the same refusal as a TLS alert, reported the same way.
        if status == 400, let refusal = Self.nginxClientCertificateRefusal(response, at: endpoint, identity: identity) { throw refusal }
        if (300..<400).contains(status), let location = response.header("Location") {
            response.redirect = Redirect(status: status, location: location, base: target.text)
        }
        response.reusedConnection = secure && connects == 0
        // Kept for this client's next request: a judged, accepted https connection (a tunnel through the same proxy, if any).
        if keepable, transfer.decision?.allowsRequest == true, transfer.statusJudged {
            let connection = owner ?? KeptConnection(key: key, handle: handle, capture: capture)
            owner = connection
            keeping = connection
        }
        return response
    }

    /// The chain, protocol and staple a kept connection's handshake showed, judged again by
    /// `policy` as the hooks judge a new handshake (chain, then revocation); nil when it refuses.
    static func judgeAgain(_ capture: UnsafeMutablePointer<vigil_tls_capture>, policy: any TLSTrustPolicy, endpoint: Endpoint) -> TLSDecision? {
        guard let chain = try? TLSProbe.capturedChain(capture), !chain.isEmpty else { return nil }
        let negotiated = TLSProtocolVersion(openSSLCode: Int(capture.pointee.version_code))
        let decision = policy.decide(chain: chain, negotiated: negotiated, for: endpoint)
        guard decision.allowsRequest else { return nil }
        let revised = policy.decide(decision, chain: chain, staple: TLSProbe.stapled(capture), for: endpoint)
        return revised.allowsRequest ? revised : nil
    }

    /// What one transfer gathers; reached from libcurl's C callbacks through an opaque pointer.
    final class Transfer {
        let policy: any TLSTrustPolicy
        let endpoint: Endpoint
        let maximumBodySize: Int
        var decision: TLSDecision?
        /// The status hook ran for this handshake (revocation judged): OpenSSL calls it on every
        /// full handshake once stapling is asked, and sessions are never resumed.
        var statusJudged = false
        /// The connection may present the account's client certificate (its origin).
        var presentsIdentity = false
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        var tooLarge = false
        /// The proxy's answers (CONNECT's, a plain request's): its 407 challenges.
        let proxyAnswer = ProxyAnswer()

        init(policy: any TLSTrustPolicy, endpoint: Endpoint, maximumBodySize: Int) {
            self.policy = policy
            self.endpoint = endpoint
            self.maximumBodySize = maximumBodySize
        }
    }

    /// nginx's 400 pages for a missing or refused client certificate, as an error.
    static func nginxClientCertificateRefusal(_ response: HTTPResponse, at endpoint: Endpoint, identity: ClientIdentity?) -> HTTPError? {
        let page = String(decoding: response.body.prefix(4096), as: UTF8.self)
        let missing = page.contains("No required SSL certificate was sent")
        guard missing || page.contains("The SSL certificate error") else { return nil }
        var exchange = response.clientCertificate ?? ClientCertificateExchange(requested: true)
        exchange.requested = true
        exchange.alert = missing ? "HTTP 400: No required SSL certificate was sent" : "HTTP 400: The SSL certificate error"
        if missing { exchange.presented = false }
        return exchange.error(at: endpoint, identity: identity, curlCode: nil)
    }

    /// Hands `identity` (its chain as DER, its key as PEM or a token's loaded key) to the
    /// capture, which owns its references to the OpenSSL objects from then on.
    static func load(_ identity: ClientIdentity, into capture: UnsafeMutablePointer<vigil_tls_capture>) -> Bool {
        let ders = identity.chain.map(\.derEncoded)
        let lengths = ders.map { Int32($0.count) }
        let pointers = ders.map { der -> UnsafeMutablePointer<UInt8> in
            let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: der.count)
            copy.initialize(from: der, count: der.count)
            return copy
        }
        defer { pointers.forEach { $0.deallocate() } }
        if let uri = identity.key.tokenURI {
            let constPointers: [UnsafePointer<UInt8>?] = pointers.map { UnsafePointer($0) }
            return identity.key.withPIN { pin in
                if let pin { return pin.withCString { vigil_tls_capture_set_token_identity(capture, constPointers, lengths, Int32(ders.count), uri, $0) == 1 } }
                return vigil_tls_capture_set_token_identity(capture, constPointers, lengths, Int32(ders.count), uri, nil) == 1
            }
        }
        return identity.key.withPEM { pem in
            var pem = Array(pem.utf8)
            defer { pem.withUnsafeMutableBytes { if let base = $0.baseAddress { explicit_bzero(base, $0.count) } } }
            let constPointers: [UnsafePointer<UInt8>?] = pointers.map { UnsafePointer($0) }
            return pem.withUnsafeBufferPointer { key in
                key.withMemoryRebound(to: CChar.self) { key in
                    vigil_tls_capture_set_identity(capture, constPointers, lengths, Int32(ders.count), key.baseAddress, key.count) == 1
                }
            }
        } ?? false
    }

    /// OpenSSL's verify hook, through the shim: the policy judges the chain as sent.
    static let decide: vigil_tls_decider = { context, capture in
        guard let context, let capture else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        guard let chain = try? TLSProbe.capturedChain(capture), !chain.isEmpty else { return 0 }
        let negotiated = TLSProtocolVersion(openSSLCode: Int(capture.pointee.version_code))
        let decision = transfer.policy.decide(chain: chain, negotiated: negotiated, for: transfer.endpoint)
        transfer.decision = decision
        // The identity may be set from now on, for this server's connection only (deny by default).
        capture.pointee.client_cert_allowed = transfer.presentsIdentity && decision.allowsRequest ? 1 : 0
        return decision.allowsRequest ? 1 : 0
    }

    /// OpenSSL's status hook, through the shim: once the staple is known, the policy judges
    /// revocation (a staple, then the CA's responders and CRLs, as its policy says).
    static let decideStatus: vigil_tls_decider = { context, capture in
        guard let context, let capture else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        guard let decision = transfer.decision, decision.allowsRequest, let chain = try? TLSProbe.capturedChain(capture) else { return 0 }
        let revised = transfer.policy.decide(decision, chain: chain, staple: TLSProbe.stapled(capture), for: transfer.endpoint)
        transfer.decision = revised
        transfer.statusJudged = true
        // A server refused here never gets the client certificate (the handshake ends first).
        if !revised.allowsRequest { capture.pointee.client_cert_allowed = 0 }
        return revised.allowsRequest ? 1 : 0
    }

    static let receiveBody: vigil_curl_data_callback = { data, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard transfer.body.count + length <= transfer.maximumBodySize else {
            transfer.tooLarge = true
            return 0
        }
        if let data, length > 0 {
            data.withMemoryRebound(to: UInt8.self, capacity: length) { transfer.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) }
        }
        return length
    }

    /// One header line; a status line (a 1xx, then the final one) starts the fields afresh.
    static let receiveHeader: vigil_curl_data_callback = { data, size, count, context in
        guard let context else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard let data, length > 0 else { return length }
        let line = data.withMemoryRebound(to: UInt8.self, capacity: length) { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) }
        transfer.proxyAnswer.read(line)
        if line.hasPrefix("HTTP/") {
            transfer.headers.removeAll()
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingWhitespace()
            transfer.headers.append((name: name, value: value))
        }
        return length
    }
}
