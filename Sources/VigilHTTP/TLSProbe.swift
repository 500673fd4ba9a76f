internal import CCurl
import FoundationEssentials
import Glibc
public import Logging
public import VigilCertificates
import VigilLogging
import VigilPaths

/// Performs a TLS handshake through libcurl (OpenSSL backend), the same client path the HTTP
/// client uses, and returns the chain the server sent. It sends no HTTP request.
///
/// libcurl verification is off on purpose: the probe only collects; every trust decision is
/// made by ``VigilCertificates/TrustEvaluator``. Nothing but a ClientHello leaves the machine.
/// The proxy is chosen by ``ProxyConfiguration`` (settings, PAC file, environment); the
/// handshake says which way it went (``Handshake/via``).
public struct TLSProbe: Sendable {
    /// What the handshake gave.
    public struct Handshake: Sendable {
        /// Certificates in the order the server sent them (leaf first).
        public var chain: [Certificate]
        /// Negotiated protocol as OpenSSL names it, for example `TLSv1.3` (for display).
        public var protocolVersion: String
        /// The negotiated protocol, from OpenSSL's number (`SSL_version`); nil for SSL 3 or unknown.
        public var negotiated: TLSProtocolVersion?
        /// The negotiated cipher as OpenSSL names it (`unknown` when none was reported).
        public var cipher: String
        /// The address connected to.
        public var remoteAddress: String
        /// The OCSP answer the server stapled (DER), asked on every handshake; nil when none came.
        public var staple: [UInt8]?
        /// Mutual TLS: the server asked for a client certificate (none is ever presented here);
        /// nil when it did not ask.
        public var clientCertificate: ClientCertificateExchange?
        /// Whether the server goes on without one: false when it ended the handshake for want of
        /// one, true when the handshake finished without one, nil when it did not ask.
        public var clientCertificateOptional: Bool?
        /// What a scan's handshake agreed (``TLSOffer``); nil for a judged connection's probe.
        public var agreement: TLSAgreement?
        /// Which proxy the connection went through (or direct), and why; nil when not known.
        public var via: ProxyUse?

        /// A handshake result; no staple and no client certificate request unless given.
        public init(
            chain: [Certificate], protocolVersion: String, negotiated: TLSProtocolVersion?, cipher: String, remoteAddress: String, staple: [UInt8]? = nil,
            clientCertificate: ClientCertificateExchange? = nil, clientCertificateOptional: Bool? = nil
        ) {
            self.clientCertificate = clientCertificate
            self.clientCertificateOptional = clientCertificateOptional
            self.chain = chain
            self.protocolVersion = protocolVersion
            self.negotiated = negotiated
            self.cipher = cipher
            self.remoteAddress = remoteAddress
            self.staple = staple
        }
    }

    /// Connect plus handshake timeout.
    public var timeout: Duration
    /// Where each handshake is logged (debug, tag `tls`).
    public var logger: Logger
    /// Names pinned to addresses (curl's `--resolve`).
    public var resolve: [HostResolution]
    /// Which proxy, and the credentials kept for proxies.
    public var proxy: ProxyConfiguration

    /// A probe with a 10-second timeout, no pinned names and the system's proxy unless given.
    public init(
        timeout: Duration = .seconds(10), logger: Logger = Logger(label: "vigil.http"), resolve: [HostResolution] = [], proxy: ProxyConfiguration = .init()
    ) {
        self.timeout = timeout
        self.logger = logger
        self.resolve = resolve
        self.proxy = proxy
    }

    /// Runs the handshake on a thread of its own (libcurl blocks).
    public func handshake(with endpoint: Endpoint) async throws -> Handshake {
        let timeout = self.timeout
        let resolve = self.resolve
        let proxy = self.proxy
        logger.privacy.debug("TLS handshake with \(endpoint.description)", metadata: ["tags": "tls"])
        let handshake = try await TransferCancellation.onThread(named: "vigil-tls-probe") { cancellation in
            try Self.blockingHandshake(endpoint, timeout: timeout, resolve: resolve, proxy: proxy, cancellation: cancellation)
        }
        if let via = handshake.via {
            logger.privacy.debug("TLS handshake with \(endpoint.description) via \(public: via.description)", metadata: ["tags": "tls"])
        }
        logger.privacy.debug(
            "TLS handshake with \(endpoint.description) done: \(public: handshake.protocolVersion), \(public: handshake.cipher), \(public: handshake.chain.count) certificates",
            metadata: ["tags": "tls"])
        return handshake
    }

    /// libcurl loaded (on first use: it is not linked) and initialised; nil, or why not.
    static let curlProblem: String? = {
        _ = keyLogGuarded
        if let error = vigil_curl_load_error() { return "libcurl cannot be loaded (\(String(cString: error))); install libcurl4" }
        return vigil_curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK ? nil : "libcurl could not be initialised"
    }()

    /// A new libcurl handle, or the reason there is none.
    static func curlHandle() throws -> UnsafeMutableRawPointer {
        if let curlProblem { throw HTTPError(.transport, curlProblem + ".") }
        guard let handle = vigil_curl_easy_init() else { throw HTTPError(.transport, "libcurl could not be initialised.") }
        return handle
    }

    /// Loads and initialises libcurl now (``curlProblem``), so that a command's first transfer
    /// does not wait for it: `EarlyStart` calls it on a thread of its own beside the command's
    /// start. ``guardKeyLogBeforeThreads()`` must have run on the main thread first.
    package static func loadLibrary() { _ = curlProblem }

    /// The environment's `SSLKEYLOGFILE` dealt with (``guardKeyLog()``), once. It may change the
    /// environment (`unsetenv`), which is not safe while another thread reads it: the main thread
    /// runs it before any other thread starts loading libcurl.
    package static func guardKeyLogBeforeThreads() { _ = keyLogGuarded }

    static let keyLogGuarded: Void = guardKeyLog()

    /// `SSLKEYLOGFILE` makes libcurl write every TLS session's secrets to a file: whoever reads it
    /// reads the traffic, credentials included. Vigil drops the variable before libcurl starts,
    /// unless `VIGIL_ALLOW_SSLKEYLOGFILE=1`; then the file is created readable by the user alone.
    static func guardKeyLog() {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment["SSLKEYLOGFILE"], !path.isEmpty else { return }
        guard environment["VIGIL_ALLOW_SSLKEYLOGFILE"] == "1" else {
            unsetenv("SSLKEYLOGFILE")
            return
        }
        // Not through a symlink, and only a file of this user's that no one else can read;
        // otherwise libcurl is not given it.
        switch PrivateFile.openForAppending(path) {
        case .success(let opened): close(opened.descriptor)
        case .failure: unsetenv("SSLKEYLOGFILE")
        }
    }

    static func blockingHandshake(
        _ endpoint: Endpoint, timeout: Duration, resolve: [HostResolution] = [], proxy: ProxyConfiguration = .init(),
        cancellation: TransferCancellation = TransferCancellation(), scan: TLSOffer? = nil
    ) throws -> Handshake {
        var (handshake, via) = try proxy.throughRoute(scheme: "https", host: endpoint.host, port: endpoint.port) { choice, kept in
            try blockingHandshake(
                endpoint, timeout: timeout, resolve: resolve, through: choice, kept: kept, environment: proxy.environment, cancellation: cancellation,
                scan: scan)
        }
        handshake.via = via
        return handshake
    }

    static func blockingHandshake(
        _ endpoint: Endpoint, timeout: Duration, resolve: [HostResolution], through choice: ProxyChoice, kept: ProxyCredential?, environment: [String: String],
        cancellation: TransferCancellation, scan: TLSOffer? = nil
    ) throws -> Handshake {
        let handle = try Self.curlHandle()
        defer { vigil_curl_easy_cleanup(handle) }
        let resolveList = HostResolution.curlList(resolve)
        defer { vigil_curl_slist_free_all(resolveList) }
        if resolveList != nil { try Curl.set(handle, CURLOPT_RESOLVE, pointer: UnsafeMutableRawPointer(resolveList)) }
        let capture = UnsafeMutablePointer<vigil_tls_capture>.allocate(capacity: 1)
        capture.initialize(to: vigil_tls_capture())
        defer {
            vigil_tls_capture_release(capture)
            capture.deallocate()
        }
        guard vigil_curl_capture_tls(handle, capture) == CURLE_OK else {
            throw HTTPError(.transport, "libcurl does not accept an OpenSSL context callback (is it built with OpenSSL?).")
        }
        let proxy = try ProxyHookup(handle, choice: choice, capture: capture, kept: kept, environment: environment)
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let milliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let code: CURLcode = try errorBuffer.withUnsafeMutableBufferPointer { buffer in
            try Curl.set(handle, CURLOPT_ERRORBUFFER, pointer: buffer.baseAddress)
            try Curl.set(handle, CURLOPT_URL, text: endpoint.description + "/")
            try Curl.set(handle, CURLOPT_PROTOCOLS_STR, text: "https")
            try Curl.set(handle, CURLOPT_CONNECT_ONLY, 1)
            // HTTP/1.1 only: with h2 agreed by ALPN, libcurl sends HTTP/2's connection preface and
            // SETTINGS the moment the handshake ends, even connect-only: application data to a host
            // not yet judged (http2 scenarios catch it). Nothing is sent after an HTTP/1.1 handshake.
            try Curl.set(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
            try Curl.set(handle, CURLOPT_NOSIGNAL, 1)
            // A resumed session has no Certificate message: always do a full handshake.
            try Curl.set(handle, CURLOPT_SSL_SESSIONID_CACHE, 0)
            try Curl.set(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
            try Curl.set(handle, CURLOPT_TIMEOUT_MS, milliseconds)
            // Collect only: the chain is judged by TrustEvaluator, never by libcurl.
            try Curl.set(handle, CURLOPT_SSL_VERIFYPEER, 0)
            try Curl.set(handle, CURLOPT_SSL_VERIFYHOST, 0)
            // Let weak servers complete the handshake so they can be inspected and judged.
            try Curl.set(handle, CURLOPT_SSL_CIPHER_LIST, text: "DEFAULT:@SECLEVEL=0")
            if let scan {
                // A scan's handshake: exactly this version and these suites.
                try Curl.set(handle, CURLOPT_SSLVERSION, scan.version.curlExactly)
                try Curl.set(handle, CURLOPT_SSL_CIPHER_LIST, text: scan.ciphers + ":@SECLEVEL=0")
                try Curl.set(handle, CURLOPT_TLS13_CIPHERS, text: scan.tls13Suites)
                if let groups = scan.groups { try Curl.set(handle, CURLOPT_SSL_EC_CURVES, text: groups) }
            }
            try cancellation.watch(handle)
            return vigil_curl_easy_perform(handle)
        }
        if code == CURLE_ABORTED_BY_CALLBACK, cancellation.isCancelled { throw cancellation.error(endpoint) }
        if let proxyHost = proxy.proxyHost, capture.pointee.proxy_failed != 0 {
            throw ProxyChoice.untrusted(proxyHost)
        }
        if let refusal = proxy.refusal(on: handle, code: code, to: endpoint) { throw refusal }
        // A server that asked for a client certificate: under TLS 1.3 it says whether it goes on
        // without one only after the handshake (an alert as its first record): waited for briefly.
        var ended = false
        if code == CURLE_OK, capture.pointee.client_cert_requested != 0 { ended = vigil_curl_await_alert(handle, 500) == 1 }
        let exchange = ClientCertificateExchange.captured(capture)
        // A server that demands a client certificate ends a TLS 1.2 handshake without one after
        // its chain came: the chain is still shown, with the demand.
        let refusedForWantOfOne =
            exchange?.requested == true && vigil_tls_capture_count(capture) > 0 && (code != CURLE_OK || (ended && exchange?.alert != nil))
        guard code == CURLE_OK || refusedForWantOfOne else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            // A timeout after the connection was made is a server that stalled its handshake:
            // something answered, so it is no "nothing reached it".
            if code == CURLE_OPERATION_TIMEDOUT, capture.pointee.handshake_started != 0 {
                throw HTTPError(
                    .handshakeStalled, "\(endpoint.description): connected, and the TLS handshake did not finish within the timeout (the server stalled).",
                    curlCode: Int(code.rawValue))
            }
            throw error(for: code, detail: detail, origin: endpoint.description, notTLS: capture.pointee.not_tls != 0)
        }
        let chain = try capturedChain(capture)
        if scan != nil {
            // A scan reads what was agreed (an anonymous suite has no chain at all).
            var session = vigil_tls_session()
            guard vigil_tls_capture_session(capture, &session) == 1 else {
                throw HTTPError(.handshakeFailed, "\(endpoint): the TLS handshake completed, and its session cannot be read.")
            }
            var scanned = Handshake(
                chain: chain, protocolVersion: capture.pointee.version.map { String(cString: $0) } ?? "unknown",
                negotiated: TLSProtocolVersion(openSSLCode: Int(session.version_code)), cipher: session.cipher.map { String(cString: $0) } ?? "unknown",
                remoteAddress: endpoint.host, staple: stapled(capture))
            scanned.agreement = TLSAgreement(session)
            return scanned
        }
        guard !chain.isEmpty else {
            throw HTTPError(.handshakeFailed, "\(endpoint): the TLS handshake completed without a server certificate.")
        }
        var address: UnsafeMutablePointer<CChar>?
        try Curl.check(vigil_curl_getinfo_string(handle, CURLINFO_PRIMARY_IP, &address), "the peer address")
        return Handshake(
            chain: chain,
            protocolVersion: capture.pointee.version.map { String(cString: $0) } ?? "unknown",
            negotiated: TLSProtocolVersion(openSSLCode: Int(capture.pointee.version_code)),
            cipher: capture.pointee.cipher.map { String(cString: $0) } ?? "unknown",
            remoteAddress: address.map { String(cString: $0) } ?? endpoint.host,
            staple: stapled(capture),
            clientCertificate: exchange,
            clientCertificateOptional: exchange?.requested == true ? !refusedForWantOfOne : nil
        )
    }

    /// The OCSP answer the server stapled, as the capture holds it.
    static func stapled(_ capture: UnsafeMutablePointer<vigil_tls_capture>) -> [UInt8]? {
        guard let staple = capture.pointee.staple, capture.pointee.staple_len > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: staple, count: capture.pointee.staple_len))
    }

    /// The certificates the server sent, leaf first, as the capture holds them.
    static func capturedChain(_ capture: UnsafeMutablePointer<vigil_tls_capture>) throws -> [Certificate] {
        var chain: [Certificate] = []
        for index in 0..<vigil_tls_capture_count(capture) {
            var der: UnsafeMutablePointer<UInt8>?
            let length = vigil_tls_capture_der(capture, index, &der)
            guard length > 0, let der else { continue }
            let bytes = Array(UnsafeBufferPointer(start: der, count: Int(length)))
            vigil_tls_free_der(der)
            chain.append(try Certificate(derEncoded: bytes))
        }
        return chain
    }

    /// `notTLS`: OpenSSL said the peer's bytes are not TLS records (``vigil_tls_capture``'s `not_tls`).
    /// `origin`: where the transfer went, as the user would write it (`http://` for a plain one).
    static func error(for code: CURLcode, detail: String, origin: String, notTLS: Bool) -> HTTPError {
        let curl = Int(code.rawValue)
        // curl's text may quote a proxy URL, user information and all: never shown.
        // (No "@", nothing to scrub: the common case skips building the expression.)
        let scrubbed =
            detail.utf8.contains(UInt8(ascii: "@"))
            ? detail.replacing(#/([A-Za-z][A-Za-z0-9+.\-]*://)[^\s'"/]*@/#.matchingSemantics(.unicodeScalar)) { String($0.output.1) + "«redacted»@" }
            : detail
        let suffix = scrubbed.isEmpty ? "" : " (\(scrubbed))"
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST:
            return HTTPError(.unresolvedHost, "\(origin): the host name could not be resolved\(suffix).", curlCode: curl)
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_PROXY:
            return HTTPError(.proxy, "\(origin): the proxy failed\(suffix).", curlCode: curl)
        case CURLE_COULDNT_CONNECT:
            return HTTPError(.connectionRefused, "\(origin): could not connect\(suffix).", curlCode: curl)
        case CURLE_OPERATION_TIMEDOUT:
            return HTTPError(.timeout, "\(origin): no answer within the timeout\(suffix).", curlCode: curl)
        case CURLE_SSL_CONNECT_ERROR where notTLS:
            return HTTPError(.notTLS, "\(origin): the server did not answer with TLS (a plain-HTTP port?)\(suffix).", curlCode: curl)
        case CURLE_SSL_CONNECT_ERROR, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING:
            return HTTPError(.handshakeFailed, "\(origin): the TLS handshake failed\(suffix).", curlCode: curl)
        default:
            let text = vigil_curl_easy_strerror(code).map { String(cString: $0) } ?? "error \(curl)"
            return HTTPError(.transport, "\(origin): \(text)\(suffix).", curlCode: curl)
        }
    }
}

extension HTTPError {
    /// Nothing reached the server: its name did not resolve, nothing answered the connection
    /// (refused, no route, no answer before any request), or the proxy could not be reached.
    /// What a machine off the network meets; anything else (a failed handshake, a proxy's
    /// refusal) reached something, and is not this.
    public var reachedNothing: Bool {
        let before: [HTTPError.Code] = [.unresolvedHost, .connectionRefused, .timeout]
        return (before.contains(code) && requestMayHaveLeft != true) || isProxyUnreachable
    }

    /// Nothing reached the proxy: it could not be resolved or connected to (the next of a PAC
    /// file's answers may be tried).
    public var isProxyUnreachable: Bool {
        guard let curlCode, proxyChallenge == nil, code == .proxy || code == .connectionRefused else { return false }
        return curlCode == Int(CURLE_COULDNT_RESOLVE_PROXY.rawValue) || curlCode == Int(CURLE_COULDNT_CONNECT.rawValue)
    }
}
