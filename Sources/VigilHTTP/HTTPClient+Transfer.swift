internal import CCurl
import FoundationEssentials
import Glibc
import VigilCertificates

/// One request on libcurl, in its steps: what may be sent at all; the connection (one kept by an
/// earlier request and judged again, or a new one); the TLS hooks and the client certificate; the
/// proxy; libcurl's options; the transfer; what went wrong, in the order that names the cause; the
/// answer, and the connection kept for the next request.
extension HTTPClient {
    /// A kept connection this request may use: its handle and capture, the decision its handshake
    /// earned under this client's policy, and what that handshake said of the client certificate.
    typealias Reused = (connection: KeptConnection, decision: TLSDecision, exchange: ClientCertificateExchange?)

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
        // 1. What may be sent at all.
        try refuseUnsendable(request, target: target)
        let secure = target.scheme == "https"
        let endpoint = Endpoint(host: target.host, port: target.port)
        // The account's client certificate, loaded only for its own origin.
        let identity = configuration.clientIdentity.flatMap { $0.covers(endpoint) && secure ? $0.identity : nil }

        // 2. The connection: one kept by an earlier request of this client, used only once this
        // client's policy has judged again what its handshake showed; otherwise a new one.
        let key = KeptConnection.Key(
            endpoint: endpoint, resolve: configuration.resolve, minimumTLSVersion: configuration.minimumTLSVersion,
            identity: identity.map { $0.chain.first?.sha256Fingerprint ?? "an identity without a chain" }, proxy: proxy.identity?.description)
        // Only requests that change nothing: libcurl sends a request again on a new connection
        // when a kept one turns out dead before any answer, and a PUT or a POST must never go twice.
        let keepable = secure && slot != nil && ["GET", "HEAD", "PROPFIND", "OPTIONS"].contains(request.method)
        let reused = keepable ? takeKeptConnection(matching: key, endpoint: endpoint) : nil
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
        defer { if let keeping { keep(keeping) } }
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

        // 3. The TLS hooks, where the policy decides inside the handshake, and the client certificate.
        let transfer = Transfer(policy: policy, endpoint: endpoint, maximumBodySize: configuration.maximumBodySize)
        let context = Unmanaged.passRetained(transfer)
        defer { context.release() }
        // The capture may outlive this transfer (a kept connection): it never points at it after.
        defer { capture.pointee.context = nil }
        try installHooks(transfer, context: context.toOpaque(), handle: handle, capture: capture, identity: identity, reused: reused != nil, secure: secure)

        // 4. The proxy, chosen here as curl would, so that an https proxy is verified before it
        // receives a proxy password, and an http proxy with one is refused. A plain-HTTP request
        // (only ever without credentials) gets curl's own verification of an https proxy: no SSL
        // context callback is installed for it.
        let (proxyHost, offer) = try proxy.apply(
            to: handle, capture: secure ? capture : nil, kept: kept, environment: configuration.proxy.environment, tunnelled: secure)
        defer { free(proxyHost) }

        // 5. libcurl's options: names pinned to addresses, the header fields, the transfer's own.
        let resolveList = HostResolution.curlList(configuration.resolve)
        defer { vigil_curl_slist_free_all(resolveList) }
        if resolveList != nil { try Curl.set(handle, CURLOPT_RESOLVE, pointer: UnsafeMutableRawPointer(resolveList)) }
        let fields = try Self.headerFields(request)
        defer { vigil_curl_slist_free_all(fields) }

        // 6. The transfer.
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = try errorBuffer.withUnsafeMutableBufferPointer { buffer in
            try Curl.set(handle, CURLOPT_ERRORBUFFER, pointer: buffer.baseAddress)
            try setOptions(handle, request: request, target: target, fields: fields, context: context.toOpaque())
            try cancellation.watch(handle)
            return vigil_curl_easy_perform(handle)
        }

        // 7. What went wrong, in the order that names the cause: cancelled; the proxy; the
        // server's certificate; the size; then libcurl's own error. Each error says whether a
        // byte of the request may have left (what a refresh token's fate hangs on).
        // No new connection: the request went on the kept one (judged again before it was sent).
        var connects = 0
        try Curl.check(vigil_curl_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects), "the number of connections")
        let mayHaveLeft = Self.requestMayHaveLeft(handle, onKeptConnection: reused != nil && connects == 0, secure: secure)
        // What this transfer's handshake said of the client certificate (none without one).
        let exchange = secure && connects > 0 ? ClientCertificateExchange.captured(capture) : nil
        do {
            if code == CURLE_ABORTED_BY_CALLBACK, cancellation.isCancelled { throw cancellation.error(endpoint) }
            try refuseByProxyOrPolicy(
                code, handle: handle, transfer: transfer, capture: capture, proxy: proxy, proxyHost: proxyHost, offer: offer, secure: secure)
            guard code == CURLE_OK else {
                throw transferError(
                    code, detail: errorBuffer, exchange: exchange, identity: identity, endpoint: endpoint, target: target, capture: capture,
                    mayHaveLeft: mayHaveLeft)
            }
            if secure { try requireJudged(transfer, connects: connects, reused: reused, endpoint: endpoint) }
        } catch var error as HTTPError {
            if error.requestMayHaveLeft == nil { error.requestMayHaveLeft = mayHaveLeft }
            throw error
        }

        // 8. The answer, and the connection kept for this client's next request.
        var status = 0
        try Curl.check(vigil_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status), "the response code")
        var response = HTTPResponse(status: status, headers: transfer.headers, body: transfer.body, tls: transfer.decision, redirect: nil)
        response.clientCertificate = connects == 0 ? reused?.exchange : exchange
        // nginx with `ssl_verify_client optional` lets the handshake finish and answers 400 with
        // its own page: the same refusal as a TLS alert, reported the same way.
        if status == 400, var refusal = Self.nginxClientCertificateRefusal(response, at: endpoint, identity: identity) {
            refusal.requestMayHaveLeft = true  // an answer came: the request was there
            throw refusal
        }
        if (300..<400).contains(status), let location = response.header("Location") {
            response.redirect = Redirect(status: status, location: location, base: target.text)
        }
        response.reusedConnection = secure && connects == 0
        // Only a judged, accepted https connection (a tunnel through the same proxy, if any).
        if keepable, transfer.decision?.allowsRequest == true, transfer.statusJudged {
            let connection = owner ?? KeptConnection(key: key, handle: handle, capture: capture)
            owner = connection
            keeping = connection
        }
        return response
    }

    /// Step 1: plain HTTP unless allowed, and a method that is an HTTP token.
    func refuseUnsendable(_ request: HTTPRequest, target: URLParts) throws {
        guard target.scheme == "https" || configuration.allowPlainHTTP else {
            throw HTTPError(.plainHTTPRefused, "http://\(target.host):\(target.port) is plain HTTP; only https is allowed.")
        }
        guard request.method.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), !request.method.isEmpty else {
            throw HTTPError(.invalidURL, "The request method is not a token.")
        }
    }

    /// Step 2: the slot's connection when it matches `key` and this client's policy accepts again
    /// what its handshake showed; nil otherwise (a connection not taken is closed by the slot).
    func takeKeptConnection(matching key: KeptConnection.Key, endpoint: Endpoint) -> Reused? {
        guard let kept = slot?.take(matching: key), let decision = Self.judgeAgain(kept.capture, policy: policy, endpoint: endpoint) else { return nil }
        // What the kept connection's handshake said of the client certificate, then forgotten:
        // only a new handshake sets it again (a failure on the kept connection is no refusal).
        let exchange = ClientCertificateExchange.captured(kept.capture)
        vigil_tls_capture_forget_exchange(kept.capture)
        return (kept, decision, exchange)
    }

    /// Step 8's end: the connection back in the slot, pointing at no transfer of this request.
    func keep(_ connection: KeptConnection) {
        guard let slot else { return }
        vigil_curl_easy_reset(connection.handle)
        connection.capture.pointee.decide = nil
        connection.capture.pointee.decide_status = nil
        connection.capture.pointee.context = nil
        slot.keep(connection)
    }

    /// Step 3: the policy's hooks in the capture, the identity handed to OpenSSL (a kept
    /// connection presented it in its handshake already), the capture in libcurl's SSL context.
    func installHooks(
        _ transfer: Transfer, context: UnsafeMutableRawPointer, handle: UnsafeMutableRawPointer, capture: UnsafeMutablePointer<vigil_tls_capture>,
        identity: ClientIdentity?, reused: Bool, secure: Bool
    ) throws {
        capture.pointee.decide = Self.decide
        capture.pointee.context = context
        capture.pointee.decide_status = Self.decideStatus
        if let identity {
            transfer.presentsIdentity = true
            guard reused || Self.load(identity, into: capture) else {
                throw HTTPError(.transport, "The account's client certificate cannot be handed to OpenSSL.")
            }
        }
        if secure, vigil_curl_capture_tls(handle, capture) != CURLE_OK {
            throw HTTPError(.transport, "libcurl does not accept an OpenSSL context callback (is it built with OpenSSL?).")
        }
        // One connection at most in the handle's cache: a kept handle's connection is the last
        // one its hooks judged.
        try Curl.set(handle, CURLOPT_MAXCONNECTS, 1)
    }

    /// Step 5: the request's header fields as libcurl's list (the caller frees it), each refused
    /// when it could split the request; no `Expect: 100-continue` round trip.
    static func headerFields(_ request: HTTPRequest) throws -> UnsafeMutablePointer<curl_slist>? {
        var fields: UnsafeMutablePointer<curl_slist>?
        for (name, value) in request.headers {
            // By bytes: "\r\n" is one Character, so a Character test would miss it.
            guard !name.isEmpty, !(name + value).utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }), !name.utf8.contains(0x3A) else {
                vigil_curl_slist_free_all(fields)
                throw HTTPError(.invalidURL, "A request header has an invalid name or value.")
            }
            fields = vigil_curl_slist_append(fields, "\(name): \(value)")
        }
        return vigil_curl_slist_append(fields, "Expect:")
    }

    /// Step 5: every option of the transfer, each one libcurl refuses failing it by name.
    func setOptions(
        _ handle: UnsafeMutableRawPointer, request: HTTPRequest, target: URLParts, fields: UnsafeMutablePointer<curl_slist>?, context: UnsafeMutableRawPointer
    ) throws {
        let milliseconds = Int(configuration.timeout.components.seconds * 1000 + configuration.timeout.components.attoseconds / 1_000_000_000_000_000)
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
        try Curl.check(vigil_curl_setopt_callback(handle, CURLOPT_WRITEFUNCTION, Self.receiveBody, CURLOPT_WRITEDATA, context), CURLOPT_WRITEFUNCTION)
        try Curl.check(vigil_curl_setopt_callback(handle, CURLOPT_HEADERFUNCTION, Self.receiveHeader, CURLOPT_HEADERDATA, context), CURLOPT_HEADERFUNCTION)
        let body = request.body ?? []
        switch request.method {
        case "GET" where body.isEmpty: break
        case "HEAD" where body.isEmpty: try Curl.set(handle, CURLOPT_NOBODY, 1)
        default:
            try Curl.set(handle, CURLOPT_CUSTOMREQUEST, text: request.method)
            if !body.isEmpty || request.method == "POST" || request.method == "PUT" {
                try Curl.set(handle, CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(body.count))
                try body.withUnsafeBufferPointer { bytes in
                    // COPYPOSTFIELDS copies, so the buffer need not outlive this call.
                    try Curl.set(handle, CURLOPT_COPYPOSTFIELDS, pointer: UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? UnsafePointer(bitPattern: 1)))
                }
            }
        }
    }

    /// Step 7: the refusals that name their cause whatever libcurl's code: an https proxy not
    /// trusted; a proxy that asked who we are (407 to CONNECT, or to a plain-HTTP request through
    /// it) and had no credential it may be sent, or refused the one it was sent; the server's
    /// certificate refused by the policy; an answer over the size limit.
    func refuseByProxyOrPolicy(
        _ code: CURLcode, handle: UnsafeMutableRawPointer, transfer: Transfer, capture: UnsafeMutablePointer<vigil_tls_capture>, proxy: ProxyChoice,
        proxyHost: UnsafeMutablePointer<CChar>?, offer: ProxyChoice.Offer, secure: Bool
    ) throws {
        if let proxyHost, capture.pointee.proxy_failed != 0 {
            throw ProxyChoice.untrusted(proxyHost)
        }
        if let refusal = ProxyChallenge.raised(
            on: handle, by: proxy.identity, answer: transfer.proxyAnswer, plainRequest: !secure, offer: offer, curlCode: code)
        {
            throw refusal
        }
        if secure, code != CURLE_OK,
            let refusal = ProxyChallenge.tunnelRefused(
                on: handle, by: proxy.identity, to: transfer.endpoint.description, curlCode: code)
        {
            throw refusal
        }
        if let decision = transfer.decision, !decision.allowsRequest {
            var error = HTTPError(
                .untrustedCertificate,
                "\(transfer.endpoint): the certificate is not trusted; nothing was sent. "
                    + decision.evaluation.verdict.reasons.map(\.message).joined(separator: " "), curlCode: Int(code.rawValue))
            error.evaluation = decision.evaluation
            throw error
        }
        if transfer.tooLarge || code == CURLE_FILESIZE_EXCEEDED {
            // The origin as errors name it: a plain-HTTP fetch (a revocation list, an OCSP
            // responder) is never called https.
            throw HTTPError(
                .bodyTooLarge,
                "\(transfer.endpoint.origin(scheme: secure ? "https" : "http")): the answer is larger than \(configuration.maximumBodySize) bytes.",
                curlCode: Int(code.rawValue))
        }
    }

    /// Whether the connection became ready for the request, so that a byte of it may have left:
    /// a kept connection was used, or libcurl completed this one's TLS handshake (its
    /// APPCONNECT time; a plain connection: its CONNECT time). Before that point no request
    /// byte is written (libcurl sends no TLS early data unless asked to).
    static func requestMayHaveLeft(_ handle: UnsafeMutableRawPointer, onKeptConnection: Bool, secure: Bool) -> Bool {
        if onKeptConnection { return true }
        var microseconds: curl_off_t = 0
        // Unknown counts as sent: the refresh token is then never presented again.
        guard vigil_curl_getinfo_off(handle, secure ? CURLINFO_APPCONNECT_TIME_T : CURLINFO_CONNECT_TIME_T, &microseconds) == CURLE_OK else {
            return true
        }
        return microseconds > 0
    }

    /// Step 7: libcurl's error as Vigil's: the server's refusal of the client certificate first,
    /// then the transport's error with libcurl's detail (a failed handshake names the oldest TLS
    /// version offered). A connection that was ready for the request and failed without an
    /// answer is ``HTTPError/Code/noAnswer``, never a failed handshake.
    func transferError(
        _ code: CURLcode, detail buffer: [CChar], exchange: ClientCertificateExchange?, identity: ClientIdentity?, endpoint: Endpoint, target: URLParts,
        capture: UnsafeMutablePointer<vigil_tls_capture>, mayHaveLeft: Bool
    ) -> HTTPError {
        let tlsLayer = [CURLE_SSL_CONNECT_ERROR, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING].contains(code)
        if let refusal = exchange?.error(at: endpoint, identity: identity, curlCode: Int(code.rawValue), tlsFailure: tlsLayer) { return refusal }
        let detail = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if mayHaveLeft, [CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE].contains(code) {
            // libcurl's own words for the code, not its detail (which may name a URL).
            let said = vigil_curl_easy_strerror(code).map { " (\(String(cString: $0)))" } ?? ""
            return HTTPError(
                .noAnswer,
                "\(endpoint.origin(scheme: target.scheme)): no answer: the connection closed after the request may have reached the server\(said).",
                curlCode: Int(code.rawValue))
        }
        let error = TLSProbe.error(for: code, detail: detail, origin: endpoint.origin(scheme: target.scheme), notTLS: capture.pointee.not_tls != 0)
        guard error.code == .handshakeFailed else { return error }
        return HTTPError(
            .handshakeFailed, error.reason + " Vigil offers TLS \(configuration.minimumTLSVersion.rawValue) or later (connection.minimum-tls-version).",
            curlCode: Int(code.rawValue))
    }

    /// Step 7's invariant, not a case: an https answer is used only from a connection this
    /// client's policy judged, chain and revocation both: in this transfer's handshake, or again
    /// before the request went on a kept one. A handshake whose revocation was never judged (a
    /// resumed session, a library that skipped the hook) gives no answer, whatever it said.
    func requireJudged(_ transfer: Transfer, connects: Int, reused: Reused?, endpoint: Endpoint) throws {
        if connects == 0 {
            guard let reused else {
                throw HTTPError(.handshakeFailed, "\(endpoint): the answer came on a connection this request did not judge; it is not used.")
            }
            transfer.decision = reused.decision
            transfer.statusJudged = true
        }
        if transfer.decision == nil {
            throw HTTPError(.handshakeFailed, "\(endpoint): the connection was not judged by the trust policy.")
        }
        if !transfer.statusJudged {
            throw HTTPError(.handshakeFailed, "\(endpoint): the certificate's revocation status was not judged for this connection; its answer is not used.")
        }
    }
}
