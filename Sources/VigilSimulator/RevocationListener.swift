import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// The revocation scenario's OCSP responder and CRL distribution point: plain HTTP on
/// 127.0.0.1, as CAs serve them (their answers are signed). `POST /ocsp` answers an OCSP request;
/// `GET /crl/intermediate.crl` and `/crl/root.crl` the CRLs; the plan decides how
/// (``RevocationPlan``). Not a simulated host: it carries no credential and is not journalled,
/// but it counts what it was asked (``requests``).
final class RevocationListener: Sendable {
    let channel: any Channel
    let port: Int
    let counter: RequestCounter

    /// Binds 127.0.0.1 on a free port; answers once ``RequestCounter/authority`` is set.
    static func start(group: any EventLoopGroup, clock: any SimulatorClock) async throws -> RevocationListener {
        let counter = RequestCounter()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(Handler(counter: counter, clock: clock))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return RevocationListener(channel: channel, port: channel.localAddress?.port ?? 0, counter: counter)
    }

    private init(channel: any Channel, port: Int, counter: RequestCounter) {
        self.channel = channel
        self.port = port
        self.counter = counter
    }

    var base: String { "http://127.0.0.1:\(port)" }

    func stop() async { try? await channel.close() }

    /// The authority (set once minted) and how many requests each path got.
    final class RequestCounter: Sendable {
        private let state = Mutex((authority: RevocationAuthority?.none, counts: [String: Int]()))
        var authority: RevocationAuthority? {
            get { state.withLock { $0.authority } }
            set { state.withLock { $0.authority = newValue } }
        }
        func count(_ path: String) { state.withLock { $0.counts[path, default: 0] += 1 } }
        var requests: [String: Int] { state.withLock { $0.counts } }
    }

    final class Handler: ChannelInboundHandler, @unchecked Sendable {  // used on its event loop only
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let counter: RequestCounter
        let clock: any SimulatorClock
        var head: HTTPRequestHead?
        var body: [UInt8] = []

        init(counter: RequestCounter, clock: any SimulatorClock) {
            self.counter = counter
            self.clock = clock
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body = []
            case .body(var buffer):
                if body.count + buffer.readableBytes <= 65_536, let bytes = buffer.readBytes(length: buffer.readableBytes) { body += bytes }
            case .end:
                guard let head else { return }
                self.head = nil
                answer(head, context: context)
            }
        }

        func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
            let path = String(head.uri.split(separator: "?").first ?? "")
            counter.count(path)
            let now = clock.now()
            guard let authority = counter.authority else { return send(503, "text/plain", Array("not ready".utf8), context: context) }
            switch (head.method, path) {
            case (.POST, "/ocsp"):
                switch authority.plan.responder {
                case .garbage:
                    send(200, "application/ocsp-response", Array("<html>this is no OCSP response</html>".utf8), context: context)
                case .slow:
                    let answer = authority.ocspAnswer(to: body, now: now) ?? []
                    let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                    context.eventLoop.scheduleTask(in: .seconds(30)) {
                        let (handler, context) = loopBound.value
                        handler.send(200, "application/ocsp-response", answer, context: context)
                    }
                default:
                    if let answer = authority.ocspAnswer(to: body, now: now) {
                        send(200, "application/ocsp-response", answer, context: context)
                    } else {
                        send(500, "text/plain", Array("no answer".utf8), context: context)
                    }
                }
            case (.GET, "/crl/intermediate.crl"), (.GET, "/crl/root.crl"):
                let name = path.dropFirst("/crl/".count).dropLast(".crl".count)
                if let crl = authority.crl(named: String(name), now: now) {
                    send(200, "application/pkix-crl", crl, context: context)
                } else {
                    send(500, "text/plain", Array("no CRL".utf8), context: context)
                }
            default:
                send(404, "text/plain", Array("not found".utf8), context: context)
            }
        }

        func send(_ status: Int, _ type: String, _ bytes: [UInt8], context: ChannelHandlerContext) {
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: type)
            headers.add(name: "Content-Length", value: "\(bytes.count)")
            headers.add(name: "Connection", value: "close")
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .init(statusCode: status), headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))), promise: nil)
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
        }
    }
}
