import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// The simulator in front of a real server: each request the scenario's behaviours do not answer
/// (its faults: a 404 storm, an APM, 500 on downloads) is sent on to the upstream server over
/// its own verified TLS connection, as a reverse proxy would (nginx's `proxy_pass`), and its
/// answer relayed back with redirects to the upstream rewritten to the simulator's own origin
/// (`proxy_redirect`). The upstream's certificate is verified against the given CA file, or the
/// system's trust store; a failure is answered 502 and journalled, never bypassed.
public struct ReverseProxy: Sendable {
    /// `https://host[:port][/prefix]`.
    public let url: String
    let scheme: String
    let host: String
    let port: Int
    /// The upstream's path prefix, without a trailing `/` (empty at the root).
    let prefix: String
    let sslContext: NIOSSLContext?

    /// The largest answer relayed; a larger one is answered 502.
    static let answerLimit = 64 * 1024 * 1024
    /// How long a request may wait for the upstream's whole answer.
    static let timeout = TimeAmount.seconds(60)

    /// `url` is the upstream server (`https://cloud.example.com` or `https://host/owncloud`);
    /// `caFile` the CAs that may sign its certificate (nil: the system's trust store).
    public init(url: String, caFile: String? = nil) throws {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(), ["https", "http"].contains(scheme),
            let host = parts.host, !host.isEmpty, parts.user == nil, parts.password == nil, parts.query == nil, parts.fragment == nil
        else {
            throw SimulatorError(.malformedFixture, "The upstream \(url) is not an http(s) URL of a server (no user, query or fragment).")
        }
        self.url = url
        self.scheme = scheme
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        self.port = parts.port ?? (scheme == "https" ? 443 : 80)
        var path = parts.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        self.prefix = path
        guard scheme == "https" else {
            sslContext = nil
            return
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        if let caFile { tls.trustRoots = .file(caFile) }
        do {
            sslContext = try NIOSSLContext(configuration: tls)
        } catch {
            throw SimulatorError(.missingCertificate, "The upstream's CA file \(caFile ?? "(system)") cannot be loaded: \(error).")
        }
    }

    /// The upstream's `scheme://host[:port]`.
    var origin: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : 80
        return "\(scheme)://\(shown)" + (port == defaultPort ? "" : ":\(port)")
    }

    /// Hop-by-hop fields (RFC 9110 7.6.1) and the ones the proxy sets itself.
    static let notForwarded: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade",
        "host", "content-length", "expect",
    ]

    /// The request as the upstream gets it: its target under the prefix, Host the upstream's,
    /// hop-by-hop fields dropped, the body's length given, one request per connection.
    func upstreamHead(_ head: HTTPRequestHead, bodyLength: Int, clientScheme: String) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        for (name, value) in head.headers where !Self.notForwarded.contains(name.lowercased()) { headers.add(name: name, value: value) }
        let defaultPort = scheme == "https" ? 443 : 80
        let shown = host.contains(":") ? "[\(host)]" : host
        headers.add(name: "Host", value: port == defaultPort ? shown : "\(shown):\(port)")
        if bodyLength > 0 || ["POST", "PUT", "PATCH"].contains(head.method.rawValue) { headers.add(name: "Content-Length", value: String(bodyLength)) }
        if let original = head.headers.first(name: "host") { headers.add(name: "X-Forwarded-Host", value: original) }
        headers.add(name: "X-Forwarded-Proto", value: clientScheme)
        headers.add(name: "Connection", value: "close")
        return HTTPRequestHead(version: .http1_1, method: head.method, uri: prefix + head.uri, headers: headers)
    }

    /// The upstream's answer as the client gets it: hop-by-hop fields dropped, and a `Location`
    /// on the upstream's origin (under its prefix) moved to `clientOrigin`.
    func clientAnswer(_ head: HTTPResponseHead, body: [UInt8], clientOrigin: String) -> SimulatedResponse {
        var headers: [(String, String)] = []
        for (name, value) in head.headers where !Self.notForwarded.contains(name.lowercased()) {
            if name.lowercased() == "location", value.lowercased().hasPrefix((origin + prefix).lowercased()) {
                let rest = value.dropFirst(origin.count + prefix.count)
                if rest.isEmpty || rest.hasPrefix("/") || rest.hasPrefix("?") {
                    headers.append((name, clientOrigin + rest))
                    continue
                }
            }
            if name.lowercased() == "location", value.hasPrefix("/"), !value.hasPrefix("//"), !prefix.isEmpty, value.hasPrefix(prefix + "/") {
                headers.append((name, String(value.dropFirst(prefix.count))))
                continue
            }
            headers.append((name, value))
        }
        var answer = SimulatedResponse(Int(head.status.code), headers)
        answer.body = body
        return answer
    }

    /// Sends `head` and `body` to the upstream on `eventLoop` and gives its answer for the client
    /// at `clientOrigin`; 502 when the upstream cannot be reached, is not trusted, or answers
    /// badly, 504 when it does not answer in time.
    func forward(_ head: HTTPRequestHead, body: [UInt8], clientScheme: String, clientOrigin: String, on eventLoop: any EventLoop) -> EventLoopFuture<
        SimulatedResponse
    > {
        let promise = eventLoop.makePromise(of: SimulatedResponse.self)
        let proxy = self
        let request = upstreamHead(head, bodyLength: body.count, clientScheme: clientScheme)
        let sslContext = self.sslContext
        let serverName: String? = (host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }) ? nil : host
        ClientBootstrap(group: eventLoop)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let sslContext {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: sslContext, serverHostname: serverName))
                    }
                    try channel.pipeline.syncOperations.addHandlers([
                        HTTPRequestEncoder(), ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .dropBytes)),
                        AnswerCollector(promise: promise, limit: Self.answerLimit),
                    ])
                }
            }
            .connect(host: host, port: port)
            .whenComplete { result in
                switch result {
                case .failure(let error):
                    promise.succeed(Self.failure(502, "The upstream server \(proxy.url) could not be reached: \(error)."))
                case .success(let channel):
                    channel.write(HTTPClientRequestPart.head(request), promise: nil)
                    if !body.isEmpty { channel.write(HTTPClientRequestPart.body(.byteBuffer(channel.allocator.buffer(bytes: body))), promise: nil) }
                    channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
                    let deadline = eventLoop.scheduleTask(in: Self.timeout) {
                        promise.succeed(Self.failure(504, "The upstream server \(proxy.url) did not answer in time."))
                        channel.close(promise: nil)
                    }
                    promise.futureResult.whenComplete { _ in
                        deadline.cancel()
                        channel.close(promise: nil)
                    }
                }
            }
        return promise.futureResult.map { proxy.clientAnswer($0.head, body: $0.body, clientOrigin: clientOrigin) }
            .flatMapError { _ in eventLoop.makeSucceededFuture(Self.failure(502, "The upstream server \(proxy.url) answered badly.")) }
    }

    /// A gateway error the simulator answers itself (the upstream's answer is not relayed).
    static func failure(_ status: Int, _ text: String) -> SimulatedResponse {
        SimulatedResponse(status, [("Content-Type", "text/plain; charset=utf-8")], body: text + "\n")
    }
}

extension SimulatedResponse {
    /// A relayed answer's head and body, before its fields are rewritten.
    fileprivate var head: HTTPResponseHead {
        HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status), headers: HTTPHeaders(headers))
    }
}

/// Gathers the upstream's whole answer (1xx skipped), at most `limit` bytes of body.
private final class AnswerCollector: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private let promise: EventLoopPromise<SimulatedResponse>
    private let limit: Int
    private var head: HTTPResponseHead?
    private var body: [UInt8] = []

    init(promise: EventLoopPromise<SimulatedResponse>, limit: Int) {
        self.promise = promise
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let received) where received.status.code < 200:
            return
        case .head(let received):
            head = received
        case .body(let bytes):
            guard body.count + bytes.readableBytes <= limit else {
                promise.succeed(ReverseProxy.failure(502, "The upstream's answer is larger than \(limit) bytes."))
                context.close(promise: nil)
                return
            }
            body.append(contentsOf: bytes.readableBytesView)
        case .end:
            guard let head else { return }
            var answer = SimulatedResponse(Int(head.status.code), head.headers.map { ($0.name, $0.value) })
            answer.body = body
            promise.succeed(answer)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.succeed(ReverseProxy.failure(502, "The upstream server closed the connection before its answer ended."))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.succeed(ReverseProxy.failure(502, "The upstream server's connection failed: \(error)."))
        context.close(promise: nil)
    }
}
