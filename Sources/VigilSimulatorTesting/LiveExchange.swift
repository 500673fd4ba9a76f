import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import VigilSimulator

/// One request over a connection of its own to a live listener: HTTP/1.1, over TLS for https
/// with the chain verified against the simulator's CA and the listener's address (its IP
/// subject alternative name), `Connection: close`.
enum LiveExchange {
    /// How long a whole exchange may take.
    static let timeout = TimeAmount.seconds(10)

    static func send(
        method: String, target: String, headers: [(String, String)], body: [UInt8], to listener: HostSimulator.Listener, caFile: String
    ) async throws -> SimulatedCloudResponse {
        let group = MultiThreadedEventLoopGroup.singleton
        let context: NIOSSLContext?
        do {
            if listener.scheme == "https" {
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.trustRoots = .file(caFile)
                context = try NIOSSLContext(configuration: tls)
            } else {
                context = nil
            }
        } catch {
            throw SimulatedCloudError(.connection, "The simulator's CA (\(caFile)) cannot be loaded: \(error).")
        }
        let promise = group.next().makePromise(of: SimulatedCloudResponse.self)
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(timeout)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let context { try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: nil)) }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(ResponseCollector(promise: promise))
                }
            }
        let channel: any Channel
        do {
            channel = try await bootstrap.connect(host: listener.address, port: listener.port).get()
        } catch {
            promise.fail(error)
            throw SimulatedCloudError(.connection, "\(listener.url): cannot connect: \(error).")
        }
        let deadline = channel.eventLoop.scheduleTask(in: timeout) {
            promise.fail(SimulatedCloudError(.timedOut, "\(listener.url): no whole answer within \(timeout.nanoseconds / 1_000_000_000) s."))
            channel.close(promise: nil)
        }
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: target)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if !body.isEmpty || ["POST", "PUT"].contains(method) { head.headers.replaceOrAdd(name: "Content-Length", value: "\(body.count)") }
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if !body.isEmpty { channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil) }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        defer {
            deadline.cancel()
            channel.close(promise: nil)
        }
        do {
            return try await promise.futureResult.get()
        } catch let error as SimulatedCloudError {
            throw error
        } catch let error as NIOSSLError {
            if case .handshakeFailed = error { throw SimulatedCloudError(.connection, "\(listener.url): the TLS handshake failed: \(error).") }
            throw SimulatedCloudError(.connection, "\(listener.url): TLS: \(error).")
        } catch let error as NIOSSLExtraError where error == .failedToValidateHostname {
            throw SimulatedCloudError(.connection, "\(listener.url): the TLS handshake failed: the certificate is not for this address (\(error)).")
        } catch {
            throw SimulatedCloudError(.connection, "\(listener.url): \(error).")
        }
    }
}

/// Gathers one HTTP answer (head, body, end) into the promise; an error or a connection that
/// ends first fails it.
final class ResponseCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    let promise: EventLoopPromise<SimulatedCloudResponse>
    var head: HTTPResponseHead?
    var body: [UInt8] = []

    init(promise: EventLoopPromise<SimulatedCloudResponse>) { self.promise = promise }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let received):
            head = received
        case .body(let buffer):
            body += buffer.readableBytesView
        case .end:
            guard let head else { return }
            promise.succeed(
                SimulatedCloudResponse(status: Int(head.status.code), headers: head.headers.map { (name: $0.name, value: $0.value) }, body: body))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(SimulatedCloudError(.connection, "The connection closed before the whole answer came."))
        context.fireChannelInactive()
    }
}
