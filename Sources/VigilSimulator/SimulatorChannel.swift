import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// A connection accepted by a simulator listener.
struct SimulatorConnection: ServerChildChannelValue {
    let channel: any Channel
}

/// The child-channel setup HummingbirdCore's server runs for each connection: a
/// ``WriteCoalescingHandler`` (one TLS record per answer), NIO's HTTP/1.1 codec with pipelining
/// assistance, then a handler that answers on the event loop (a
/// ``ResponderHandler``, or an ``InterceptingProxyHandler`` for a man in the middle).
/// HummingbirdTLS's `TLSChannel` wraps it for HTTPS.
struct SimulatorChannel: ServerChildChannel {
    typealias Value = SimulatorConnection

    /// Makes the connection's last handler; called on the connection's event loop.
    let makeHandler: @Sendable () -> any ChannelHandler

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<SimulatorConnection> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(WriteCoalescingHandler())
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: true)
            try channel.pipeline.syncOperations.addHandler(makeHandler())
            return SimulatorConnection(channel: channel)
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
