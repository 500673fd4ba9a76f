internal import CCurl
import Synchronization

/// A connection kept after a request, with what its handshake showed (the chain, the staple,
/// the protocol: the capture OpenSSL's hooks filled), for the next request of the same client
/// (``HTTPClient/keepingConnections()``). Owned by one transfer at a time: taken out of its
/// ``ConnectionSlot`` for a request, put back after it. Going away closes the connection.
final class KeptConnection: @unchecked Sendable {
    /// What a connection must match to carry another request: the same origin, reached the same
    /// way (names pinned to the same addresses), offering the same TLS versions, with the same
    /// client certificate or none.
    struct Key: Hashable {
        var endpoint: Endpoint
        var resolve: [HostResolution]
        var minimumTLSVersion: TLSProtocolVersion
        var identity: String?
        /// The proxy the connection is a tunnel through (its scheme, host and port); nil: direct.
        var proxy: String? = nil
    }

    let key: Key
    let handle: UnsafeMutableRawPointer
    let capture: UnsafeMutablePointer<vigil_tls_capture>

    init(key: Key, handle: UnsafeMutableRawPointer, capture: UnsafeMutablePointer<vigil_tls_capture>) {
        self.key = key
        self.handle = handle
        self.capture = capture
    }

    deinit {
        // The handle first: closing the connection may still call the capture's hooks.
        vigil_curl_easy_cleanup(handle)
        vigil_tls_capture_release(capture)
        capture.deallocate()
    }
}

/// Where a client keeps its one idle connection between requests (shared by the client's copies).
final class ConnectionSlot: Sendable {
    private let kept = Mutex<KeptConnection?>(nil)

    /// The kept connection, taken out, when it matches `key`; one that does not is closed.
    func take(matching key: KeptConnection.Key) -> KeptConnection? {
        let connection = kept.withLock { current in
            let taken = current
            current = nil
            return taken
        }
        guard let connection, connection.key == key else { return nil }
        return connection
    }

    /// Keeps `connection` for the next request (closing one kept before, if any).
    func keep(_ connection: KeptConnection) {
        let replaced = kept.withLock { current in
            let old = current
            current = connection
            return old
        }
        _ = replaced
    }
}
