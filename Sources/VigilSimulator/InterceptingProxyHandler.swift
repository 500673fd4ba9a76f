import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// A man in the middle: the client's TLS ends here, under the attacker's certificate; each
/// request is journalled as the attacker saw it (`mitm: true`) and forwarded over a second TLS
/// connection to the genuine simulated host, whose answer is relayed back unchanged. The genuine
/// host journals the same request again, as any server would.
final class InterceptingProxyHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let upstream: Upstream
    private let address: String
    private let journal: Journal
    private var upstreamChannel: (any Channel)?
    private var connecting = false
    private var queued: [HTTPClientRequestPart] = []
    /// The journal entries (made as each head arrived) of requests not answered yet, oldest first.
    private var seen: [Int] = []
    private let connection: ConnectionState
    /// The secrets a client holds (the responder's planted secrets), to spot them anywhere in a request.
    private let search: @Sendable () -> CredentialSearch

    init(
        upstream: Upstream, address: String, journal: Journal, connection: ConnectionState, search: @escaping @Sendable () -> CredentialSearch
    ) {
        self.connection = connection
        self.upstream = upstream
        self.address = address
        self.journal = journal
        self.search = search
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        let forwarded: HTTPClientRequestPart
        switch part {
        case .head(let head):
            let path = SimulatedRequest.path(of: head.uri)
            let announcesBody = head.headers.contains(name: "transfer-encoding") || (head.headers.first(name: "content-length").flatMap { Int($0) } ?? 0) > 0
            // What the attacker could take: any body (not looked into), a credential header or
            // query field, or a planted secret anywhere in the target or the headers.
            var request = SimulatedRequest(method: head.method.rawValue, target: head.uri, headers: [:], hasBody: false, scheme: "https", host: 1)
            for (name, value) in head.headers { request.headers[name.lowercased()] = value }
            request.headerNames = head.headers.map(\.name)
            var found = SimulatedSite.findings(request, search: search())
            if announcesBody { found.append("the body (unread by the interceptor)") }
            var entry = JournalEntry(
                time: Journal.timestamp(), host: address, method: head.method.rawValue, path: path, status: 0,
                authorization: head.headers.contains(name: "authorization"), cookie: head.headers.contains(name: "cookie"),
                body: announcesBody, mitm: true, scheme: "https", credential: !found.isEmpty)
            entry.found = found.isEmpty ? nil : found
            entry.connection = connection.id >= 0 ? connection.id : nil
            seen.append(journal.begin(entry))
            connection.busy = true
            forwarded = .head(head)
        case .body(let bytes):
            forwarded = .body(.byteBuffer(bytes))
        case .end(let trailers):
            forwarded = .end(trailers)
        }
        if let channel = upstreamChannel {
            if case .end = part { channel.writeAndFlush(forwarded, promise: nil) } else { channel.write(forwarded, promise: nil) }
            return
        }
        queued.append(forwarded)
        if !connecting {
            connecting = true
            connect(context: context)
        }
    }

    /// The genuine host answered: the attacker has seen the status too.
    func answered(status: Int) {
        guard !seen.isEmpty else { return }
        let number = seen.removeFirst()
        journal.update(number) { $0.status = status }
        journal.finish(number)
        connection.busy = !seen.isEmpty
    }

    private func connect(context: ChannelHandlerContext) {
        let downstream = context.channel
        let proxy = NIOLoopBound(self, eventLoop: context.eventLoop)
        let sslContext = upstream.sslContext
        guard let port = upstream.port else {
            context.close(promise: nil)
            return
        }
        ClientBootstrap(group: context.eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: nil))
                    // NIO's client handlers, but with 1xx answers passed on: a client waiting for
                    // "100 Continue" must get it through the proxy.
                    try channel.pipeline.syncOperations.addHandlers([
                        HTTPRequestEncoder(),
                        ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes, informationalResponseStrategy: .forward)),
                    ])
                    try channel.pipeline.syncOperations.addHandler(UpstreamRelay(downstream: downstream, proxy: proxy))
                }
            }
            .connect(host: upstream.address, port: port)
            .whenComplete { result in
                let handler = proxy.value
                handler.connecting = false
                switch result {
                case .success(let channel):
                    guard downstream.isActive else {
                        channel.close(promise: nil)
                        return
                    }
                    handler.upstreamChannel = channel
                    for part in handler.queued { channel.write(part, promise: nil) }
                    handler.queued.removeAll()
                    channel.flush()
                case .failure:
                    downstream.close(promise: nil)
                }
            }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // What the attacker saw stays in the journal even when no answer came back.
        for number in seen { journal.finish(number) }
        seen.removeAll()
        upstreamChannel?.close(promise: nil)
        upstreamChannel = nil
        context.fireChannelInactive()
    }

    /// The server is stopping: an idle client connection is closed at once (and the one upstream).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// The genuine host a man in the middle forwards to; its port is known once it listens.
    final class Upstream: Sendable {
        let address: String
        let sslContext: NIOSSLContext
        private let knownPort = Mutex<Int?>(nil)

        init(address: String, sslContext: NIOSSLContext) {
            self.address = address
            self.sslContext = sslContext
        }

        var port: Int? {
            get { knownPort.withLock { $0 } }
            set { knownPort.withLock { $0 = newValue } }
        }
    }
}

/// The proxy's side of the second TLS connection: relays the genuine host's answer to the client.
final class UpstreamRelay: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let downstream: any Channel
    private let proxy: NIOLoopBound<InterceptingProxyHandler>
    private var lastWrite: EventLoopFuture<Void>?

    init(downstream: any Channel, proxy: NIOLoopBound<InterceptingProxyHandler>) {
        self.downstream = downstream
        self.proxy = proxy
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head) where head.status.code < 200:
            downstream.writeAndFlush(HTTPServerResponsePart.head(head), promise: nil)
        case .head(let head):
            proxy.value.answered(status: Int(head.status.code))
            downstream.write(HTTPServerResponsePart.head(head), promise: nil)
        case .body(let bytes):
            downstream.write(HTTPServerResponsePart.body(.byteBuffer(bytes)), promise: nil)
        case .end(let trailers):
            lastWrite = downstream.writeAndFlush(HTTPServerResponsePart.end(trailers))
        }
    }

    /// The genuine host closed: the client's connection ends once the last answer is written.
    func channelInactive(context: ChannelHandlerContext) {
        let downstream = self.downstream
        (lastWrite ?? context.eventLoop.makeSucceededVoidFuture()).whenComplete { _ in downstream.close(promise: nil) }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
