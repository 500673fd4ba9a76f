import NIOCore
import NIOHTTP1

/// Answers each request on the connection's own event loop: the simulator's responder and
/// journal are synchronous, so a request never hops to another thread (see docs/performance.md).
/// NIO's pipelining assistance upstream of this handler delivers one request at a time.
final class ResponderHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The largest request body read; a larger one is answered 413 and the connection closed.
    static let bodyLimit = 16 * 1024 * 1024

    private let site: SimulatedSite
    private let connection: ConnectionState
    private var head: HTTPRequestHead?
    /// The request as the head made it (the body joins it at the end).
    private var request: SimulatedRequest?
    /// The journal entry of the request under way (made when its head arrived).
    private var entry = 0
    private var body: ByteBuffer?
    private var tooLarge = false

    init(site: SimulatedSite, connection: ConnectionState) {
        self.site = site
        self.connection = connection
    }

    /// The server is stopping: the connection is closed between requests (a keep-alive client,
    /// or the man in the middle's upstream connection, would otherwise hold the shutdown).
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            if head == nil { context.close(promise: nil) } else { closeWhenAnswered = true }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    private var closeWhenAnswered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body = nil
            let made = site.request(from: requestHead, body: [])
            request = made
            entry = site.received(made, connection: connection.id)
            connection.busy = true
            tooLarge = (requestHead.headers.first(name: "content-length").flatMap { Int($0) } ?? 0) > Self.bodyLimit
            // A client that waits for leave to send its body (libcurl does above 1 MB) gets it at
            // once, unless the announced body is already too large.
            if !tooLarge, requestHead.version == .http1_1, requestHead.headers["expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .continue))), promise: nil)
            }
        case .body(var part):
            guard !tooLarge else { return }
            if (body?.readableBytes ?? 0) + part.readableBytes > Self.bodyLimit {
                tooLarge = true
                body = nil
            } else if body == nil {
                body = part
            } else {
                body!.writeBuffer(&part)
            }
        case .end:
            guard let requestHead = head else { return }
            head = nil
            connection.requestEnded()
            if tooLarge {
                connection.busy = false
                site.complete(entry, site.request(from: requestHead, body: []), status: 413)
                write(
                    SimulatedResponse(413, [("Content-Type", "text/plain")], body: "Request body too large.\n"), for: requestHead, close: true, context: context
                )
                return
            }
            var request = self.request ?? site.request(from: requestHead, body: [])
            self.request = nil
            request.body = body.map { Array($0.readableBytesView) } ?? []
            request.hasBody = !request.body.isEmpty
            body = nil
            if let front = site.front, site.responder.fault(to: request) == nil {
                forward(request, head: requestHead, through: front, context: context)
                return
            }
            let answer = site.answer(request, entry: entry)
            connection.busy = false
            write(answer, for: requestHead, close: !requestHead.isKeepAlive || closeWhenAnswered || connection.inputClosed, context: context)
        }
    }

    /// In front of a real server: a request the behaviours let through goes upstream; its answer
    /// (or the gateway error) completes the entry and is written when it comes. NIO's pipelining
    /// assistance holds the next request until then.
    private func forward(_ request: SimulatedRequest, head: HTTPRequestHead, through front: ReverseProxy, context: ChannelHandlerContext) {
        let number = entry, site = self.site
        let clientOrigin = "\(site.scheme)://\(head.headers.first(name: "host") ?? site.address)"
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        front.forward(head, body: request.body, clientScheme: site.scheme, clientOrigin: clientOrigin, on: context.eventLoop).whenSuccess { answer in
            let (handler, context) = bound.value
            site.complete(number, request, status: answer.status)
            handler.connection.busy = false
            guard context.channel.isActive else { return }
            handler.write(
                answer, for: head, close: !head.isKeepAlive || handler.closeWhenAnswered || handler.connection.inputClosed, context: context)
        }
    }

    private func write(_ answer: SimulatedResponse, for request: HTTPRequestHead, close: Bool, context: ChannelHandlerContext) {
        switch answer.abort {
        case .never?:
            return
        case .truncate(let announced)?:
            var headers = HTTPHeaders([("Content-Length", String(announced))])
            for (name, value) in answer.headers where name.lowercased() != "content-length" { headers.add(name: name, value: value) }
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: HTTPResponseStatus(statusCode: answer.status), headers: headers))),
                promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: answer.body)))), promise: nil)
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.flush()
            context.eventLoop.scheduleTask(in: .milliseconds(20)) { loopBound.value.close(promise: nil) }
            return
        case .trickle(let milliseconds)?:
            var headers = HTTPHeaders([("Content-Length", String(answer.body.count))])
            for (name, value) in answer.headers where name.lowercased() != "content-length" { headers.add(name: name, value: value) }
            context.writeAndFlush(
                wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: HTTPResponseStatus(statusCode: answer.status), headers: headers))),
                promise: nil)
            Self.trickle(
                answer.body[...], every: .milliseconds(Int64(milliseconds)), NIOLoopBound(context, eventLoop: context.eventLoop),
                handler: NIOLoopBound(self, eventLoop: context.eventLoop))
            return
        case nil:
            break
        }
        var headers = HTTPHeaders()
        headers.reserveCapacity(answer.headers.count + 2)
        var hasLength = false
        for (name, value) in answer.headers {
            if !hasLength, name.utf8.count == 14, name.lowercased() == "content-length" { hasLength = true }
            headers.add(name: name, value: value)
        }
        if !hasLength { headers.add(name: "Content-Length", value: String(answer.body.count)) }
        if close { headers.add(name: "Connection", value: "close") }
        let responseHead = HTTPResponseHead(version: request.version, status: HTTPResponseStatus(statusCode: answer.status), headers: headers)
        context.write(wrapOutboundOut(.head(responseHead)), promise: nil)
        if request.method != .HEAD, !answer.body.isEmpty {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: answer.body)))), promise: nil)
        }
        if close {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in loopBound.value.close(promise: nil) }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    /// One byte of `rest` now, the others each `interval` later; then the end and close. Stops when
    /// the client has gone.
    static func trickle(
        _ rest: ArraySlice<UInt8>, every interval: TimeAmount, _ context: NIOLoopBound<ChannelHandlerContext>,
        handler: NIOLoopBound<ResponderHandler>
    ) {
        let context = context.value
        guard context.channel.isActive else { return }
        guard let byte = rest.first else {
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(handler.value.wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
            return
        }
        context.writeAndFlush(handler.value.wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: [byte])))), promise: nil)
        let next = rest.dropFirst(), bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: interval) { trickle(next, every: interval, bound, handler: handler) }
    }

    /// A request cut off before its end: its entry is completed with what arrived (status 0).
    func channelInactive(context: ChannelHandlerContext) {
        if let head {
            site.complete(entry, site.request(from: head, body: body.map { Array($0.readableBytesView) } ?? []), status: 0)
            self.head = nil
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A broken TLS record, a malformed request, a body that does not decompress, or a reset:
        // this connection ends, the server goes on. A head that failed to parse is journalled
        // from its bytes (NIO's error handler answered it 400); a request under way is completed.
        if let head {
            site.complete(entry, site.request(from: head, body: body.map { Array($0.readableBytesView) } ?? []), status: 0)
            self.head = nil
        } else if error is HTTPParserError, !connection.busy, !connection.capture.isEmpty {
            site.unparseable(connection.capture, connection: connection.id, status: 400)
            connection.requestEnded()
        }
        context.close(promise: nil)
    }
}
