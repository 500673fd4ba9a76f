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
        while configuration.cookies != nil, !request.sentOnce, repeatable || method == "POST", rounds < 2, let redirect = answer.redirect,
            Self.isCookieRoundTrip(redirect, from: request.url)
        {
            let hop = try await Self.afterTheRequestLeft {
                try await exchange(
                    HTTPRequest(url: redirect.location, headers: request.headers.filter { ["user-agent", "x-request-id"].contains($0.name.lowercased()) }),
                    id: requestID)
            }
            guard hop.cookiesSet > 0, let back = hop.response.redirect, Self.isCookieRoundTrip(back, from: redirect.location),
                repeatable || Self.sameTarget(back.location, request.url)
            else {
                // A gateway's hold, not a server's redirect: the hop was asked to send the client
                // back to where it was going (the target in its query), and did not.
                answer.heldByAccessGateway = Self.carriesReturnTarget(redirect.location, original: request.url)
                break
            }
            rounds += 1
            answer = try await Self.afterTheRequestLeft { try await exchange(request, id: requestID).response }
        }
        return answer
    }

    /// `body`, a later exchange of a request whose first one was answered: whatever fails there,
    /// the request has reached the server already (``HTTPError/requestMayHaveLeft`` true).
    static func afterTheRequestLeft<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch var error as HTTPError {
            error.requestMayHaveLeft = true
            throw error
        }
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
