internal import CCurl
import Glibc

extension TLSProbe {
    /// Sends `hello` (a ClientHello written by the caller, for what this machine's OpenSSL can no
    /// longer speak: SSL 3.0, 3DES, RC4, export suites) over a plain TCP connection to `endpoint`,
    /// through the configured proxy's CONNECT tunnel like every other handshake, and returns the
    /// server's answer: its records up to the first handshake message whole (reassembled across
    /// records), or an alert (at most `capacity` bytes, a whole record and more; empty when it
    /// closed without a word).
    /// Nothing else is sent: the connection closes once the answer is read. Throws when nothing
    /// answered (``HTTPError/reachedNothing``), on a proxy's refusal, or when nothing came in time.
    public func firstRecord(with endpoint: Endpoint, sending hello: [UInt8], capacity: Int = 5 + 16_384 + 2_048) async throws -> [UInt8] {
        let (timeout, resolve, proxy) = (self.timeout, self.resolve, self.proxy)
        return try await TransferCancellation.onThread(named: "vigil-tls-raw") { cancellation in
            let (answer, _) = try proxy.throughRoute(scheme: "https", host: endpoint.host, port: endpoint.port) { choice, kept in
                try Self.blockingFirstRecord(
                    endpoint, hello: hello, capacity: capacity, timeout: timeout, resolve: resolve, through: choice, kept: kept,
                    environment: proxy.environment, cancellation: cancellation)
            }
            return answer
        }
    }

    static func blockingFirstRecord(
        _ endpoint: Endpoint, hello: [UInt8], capacity: Int, timeout: Duration, resolve: [HostResolution], through choice: ProxyChoice,
        kept: ProxyCredential?, environment: [String: String], cancellation: TransferCancellation
    ) throws -> [UInt8] {
        let handle = try Self.curlHandle()
        defer { vigil_curl_easy_cleanup(handle) }
        let resolveList = HostResolution.curlList(resolve)
        defer { vigil_curl_slist_free_all(resolveList) }
        if resolveList != nil { try Curl.set(handle, CURLOPT_RESOLVE, pointer: UnsafeMutableRawPointer(resolveList)) }
        let proxy = try ProxyHookup(handle, choice: choice, capture: nil, kept: kept, environment: environment)
        let milliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        // A plain http URL, connect-only: curl opens the TCP connection (through the proxy's
        // CONNECT, which HTTPPROXYTUNNEL asks for even for http) and sends nothing of its own.
        let origin = endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host
        try Curl.set(handle, CURLOPT_URL, text: "http://\(origin):\(endpoint.port)/")
        try Curl.set(handle, CURLOPT_PROTOCOLS_STR, text: "http")
        try Curl.set(handle, CURLOPT_CONNECT_ONLY, 1)
        try Curl.set(handle, CURLOPT_HTTPPROXYTUNNEL, 1)
        try Curl.set(handle, CURLOPT_NOSIGNAL, 1)
        try Curl.set(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
        try Curl.set(handle, CURLOPT_TIMEOUT_MS, milliseconds)
        try cancellation.watch(handle)
        let code = vigil_curl_easy_perform(handle)
        if code == CURLE_ABORTED_BY_CALLBACK, cancellation.isCancelled { throw cancellation.error(endpoint) }
        if let refusal = proxy.refusal(on: handle, code: code, to: endpoint) { throw refusal }
        guard code == CURLE_OK else {
            throw error(for: code, detail: String(cString: vigil_curl_easy_strerror(code)), origin: endpoint.description, notTLS: false)
        }
        var buffer = [UInt8](repeating: 0, count: capacity)
        let context = Unmanaged.passUnretained(cancellation).toOpaque()
        let read = buffer.withUnsafeMutableBufferPointer { into in
            hello.withUnsafeBufferPointer { out in
                vigil_curl_first_record(
                    handle, out.baseAddress, out.count, into.baseAddress, into.count, Int32(milliseconds), TransferCancellation.abortIfCancelled, context)
            }
        }
        if read == -3 || cancellation.isCancelled { throw cancellation.error(endpoint) }
        guard read >= 0 else {
            throw HTTPError(
                read == -2 ? .timeout : .transport,
                read == -2 ? "\(endpoint): no answer to a ClientHello within \(milliseconds) ms." : "\(endpoint): the connection failed.")
        }
        return Array(buffer.prefix(read))
    }
}
