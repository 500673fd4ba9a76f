import CSimulatorPKI
import Foundation
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOHTTPCompression
import NIOSSL
import NIOTLS
import Synchronization

/// A connection accepted by a simulator listener.
struct SimulatorConnection: ServerChildChannelValue {
    let channel: any Channel
}

/// The child-channel setup HummingbirdCore's server runs for each connection, recorded in the
/// journal from its first byte: a ``RawConnectionRecorder`` (the ClientHello), TLS when the
/// listener has a context, a ``TLSConnectionRecorder`` (how the handshake ended, the application
/// data sent), a ``WriteCoalescingHandler`` (one TLS record per answer), NIO's HTTP/1.1 codec with
/// pipelining assistance, request bodies decompressed (gzip, deflate), then a handler that
/// answers on the event loop (a ``ResponderHandler``, or an ``InterceptingProxyHandler`` for a
/// man in the middle).
struct SimulatorChannel: ServerChildChannel {
    typealias Value = SimulatorConnection

    /// The listener's address, its TLS context (nil: plain HTTP) and the certificate case it presents.
    let address: String
    let sslContext: NIOSSLContext?
    /// Mutual TLS: the CA (PEM) whose client certificates this host accepts; nil: it asks for none.
    /// What a client presents is journalled when it arrives, whether or not it verifies.
    var clientCA: [UInt8]? = nil
    /// The clock client certificates are judged at.
    var clock: any SimulatorClock = SystemSimulatorClock()
    let certificate: String?
    let mitm: Bool
    let journal: Journal
    /// False for the genuine host behind a man in the middle: its connections come from the
    /// interceptor, not from a client (its requests are journalled all the same).
    let recordsConnections: Bool
    /// HTTP/2 offered by ALPN (the TLS context lists `h2`): an `h2` connection gets NIO's HTTP/2
    /// handler, each stream NIO's translation to HTTP/1 parts and the same handler as an HTTP/1.1
    /// connection; anything else gets HTTP/1.1.
    var http2 = false
    let registry: ConnectionRegistry
    /// The search for the secrets a client holds (the responder's planted secrets).
    let search: @Sendable () -> CredentialSearch
    /// Makes the connection's last handler; called on the connection's event loop.
    let makeHandler: @Sendable (ConnectionState) -> any ChannelHandler

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<SimulatorConnection> {
        channel.eventLoop.makeCompletedFuture {
            let id =
                recordsConnections
                ? journal.open(
                    host: address, scheme: sslContext == nil ? "http" : "https", certificate: certificate, mitm: mitm, peerPort: channel.remoteAddress?.port)
                : -1
            let state = ConnectionState(id: id, journal: journal)
            if id >= 0 {
                // A connection after the suite has read what the client did is refused at once
                // (it is still recorded, with what it sent before it was closed: nothing).
                guard registry.add(id, channel) else {
                    journal.updateConnection(id) {
                        $0.open = false
                        $0.cut = true
                    }
                    channel.close(promise: nil)
                    throw ChannelError.ioOnClosedChannel
                }
                // Closed once every handler has seen the connection end (their entries are complete).
                channel.closeFuture.whenComplete { [registry, journal] _ in
                    registry.remove(id)
                    journal.updateConnection(id) { $0.open = false }
                }
            }
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(RawConnectionRecorder(state: state, tls: sslContext != nil, search: search))
            if let sslContext {
                if let clientCA {
                    try pipeline.addHandler(
                        NIOSSLServerHandler(context: sslContext, customVerificationCallback: Self.clientVerification(clientCA, state: state, clock: clock)))
                } else {
                    try pipeline.addHandler(NIOSSLServerHandler(context: sslContext))
                }
                try pipeline.addHandler(TLSConnectionRecorder(state: state))
            }
            try pipeline.addHandler(WriteCoalescingHandler())
            guard http2 else {
                try configureHTTP1(pipeline, state: state)
                return SimulatorConnection(channel: channel)
            }
            let makeHandler = self.makeHandler
            // Every stream's channel runs on its connection's event loop, where the state lives.
            let streamState = NIOLoopBound(state, eventLoop: channel.eventLoop)
            try pipeline.addHandler(
                ApplicationProtocolNegotiationHandler { [self] result in
                    channel.eventLoop.makeCompletedFuture {
                        let pipeline = channel.pipeline.syncOperations
                        guard case .negotiated("h2") = result else { return try configureHTTP1(pipeline, state: state) }
                        _ = try pipeline.configureHTTP2Pipeline(
                            mode: .server, connectionConfiguration: .init(), streamConfiguration: .init()
                        ) { stream in
                            stream.eventLoop.makeCompletedFuture {
                                let streamPipeline = stream.pipeline.syncOperations
                                try streamPipeline.addHandler(HTTP2FramePayloadToHTTP1ServerCodec())
                                try streamPipeline.addHandler(NIOHTTPRequestDecompressor(limit: .size(ResponderHandler.bodyLimit)))
                                try streamPipeline.addHandler(makeHandler(streamState.value))
                            }
                        }
                    }
                })
            return SimulatorConnection(channel: channel)
        }
    }

    /// HTTP/1.1 after TLS (or on a plain listener): NIO's codec with pipelining assistance, bodies
    /// decompressed (not for a man in the middle, which forwards them as they came), the handler.
    func configureHTTP1(_ pipeline: ChannelPipeline.SynchronousOperations, state: ConnectionState) throws {
        try pipeline.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
        if !mitm { try pipeline.addHandler(NIOHTTPRequestDecompressor(limit: .size(ResponderHandler.bodyLimit))) }
        try pipeline.addHandler(makeHandler(state))
    }

    /// A mutual-TLS host's check of a client's certificate: journalled as presented the moment it
    /// arrives (a disclosure even when it is refused), then verified against the host's CA for
    /// client authentication.
    static func clientVerification(_ ca: [UInt8], state: ConnectionState, clock: any SimulatorClock) -> NIOSSLCustomVerificationCallback {
        { certificates, promise in
            if let first = certificates.first {
                let subject = TLSConnectionRecorder.subject(of: first)
                state.update { $0.clientCertificate = subject }
            }
            let ders = certificates.compactMap { try? $0.toDERBytes() }
            let pointers = ders.map { der -> UnsafeMutablePointer<UInt8> in
                let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(der.count, 1))
                copy.initialize(from: der, count: der.count)
                return copy
            }
            defer { pointers.forEach { $0.deallocate() } }
            let constPointers: [UnsafePointer<UInt8>?] = pointers.map { UnsafePointer($0) }
            let lengths = ders.map { Int32($0.count) }
            let result = ca.withUnsafeBufferPointer { pem in
                pem.withMemoryRebound(to: CChar.self) {
                    vigil_pki_verify_client(
                        constPointers, lengths, Int32(ders.count), $0.baseAddress, Int32($0.count), Int64(clock.now().timeIntervalSince1970))
                }
            }
            promise.succeed(result == 0 && !ders.isEmpty ? .certificateVerified : .failed)
        }
    }

    /// The handler does the work on the event loop; this task only waits for the connection to
    /// end, and ends it when the server is cancelled.
    func handle(value: SimulatorConnection, logger: Logger) async {
        await withTaskCancellationHandler {
            try? await value.channel.closeFuture.get()
        } onCancel: {
            value.channel.close(promise: nil)
        }
    }
}

/// The simulator's open connections, so that a client's leftovers can be cut.
final class ConnectionRegistry: Sendable {
    private struct State {
        var open: [Int: any Channel] = [:]
        var doorsClosed = false
    }
    private let state = Mutex(State())

    /// Registers a new connection; false once the doors are closed.
    func add(_ id: Int, _ channel: any Channel) -> Bool {
        state.withLock { state in
            guard !state.doorsClosed else { return false }
            state.open[id] = channel
            return true
        }
    }
    func remove(_ id: Int) { _ = state.withLock { $0.open.removeValue(forKey: id) } }

    /// Closes every open connection and refuses new ones from now on; returns the ids closed.
    func cutAll(closingDoors: Bool) -> [Int] {
        let channels = state.withLock { state in
            if closingDoors { state.doorsClosed = true }
            defer { state.open.removeAll() }
            return state.open
        }
        for channel in channels.values { channel.close(promise: nil) }
        return channels.keys.sorted()
    }
}
