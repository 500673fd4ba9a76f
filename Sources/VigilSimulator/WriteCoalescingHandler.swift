import NIOCore

/// Gathers the bytes written between two flushes into one buffer, so the TLS handler below it
/// seals an answer (status line, headers, body) in one TLS record instead of one per part.
/// File regions, which a TLS connection cannot carry anyway, pass through in order.
final class WriteCoalescingHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private var pending: ByteBuffer?
    private var promises: [EventLoopPromise<Void>] = []

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .byteBuffer(var bytes):
            if pending == nil {
                pending = bytes
            } else {
                pending!.writeBuffer(&bytes)
            }
            if let promise { promises.append(promise) }
        case .fileRegion:
            forward(context: context)
            context.write(data, promise: promise)
        }
    }

    func flush(context: ChannelHandlerContext) {
        forward(context: context)
        context.flush()
    }

    /// Passes the gathered bytes on as one write; its outcome completes every gathered promise.
    private func forward(context: ChannelHandlerContext) {
        guard let bytes = pending else { return }
        pending = nil
        let waiting = promises
        promises.removeAll(keepingCapacity: true)
        if waiting.isEmpty {
            context.write(wrapOutboundOut(.byteBuffer(bytes)), promise: nil)
        } else if waiting.count == 1 {
            context.write(wrapOutboundOut(.byteBuffer(bytes)), promise: waiting[0])
        } else {
            let promise = context.eventLoop.makePromise(of: Void.self)
            for other in waiting { promise.futureResult.cascade(to: other) }
            context.write(wrapOutboundOut(.byteBuffer(bytes)), promise: promise)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        for promise in promises { promise.fail(ChannelError.ioOnClosedChannel) }
        promises.removeAll()
        pending = nil
    }
}
