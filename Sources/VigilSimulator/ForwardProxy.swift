import Crypto
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A scenario's forward proxy (``ProxyPlan``): plain HTTP on 127.0.0.1, answering `CONNECT`
/// only. It asks who you are when its plan says so (`407` with `Proxy-Authenticate: Basic` or
/// `Digest`), then tunnels to the simulated host named, never anywhere but 127.0.0.0/8. Every
/// CONNECT is recorded (``ProxyEntry``): what the client sent the proxy is judged as strictly as
/// what reached a host (a proxy credential before the proxy asked, to a proxy that never asks, or
/// in clear without consent, is a credential disclosed).
final class ForwardProxy: Sendable {
    let channel: any Channel
    let number: Int
    let port: Int
    let plan: ProxyPlan.Proxy
    let entries = Mutex<[ProxyEntry]>([])

    /// The user and password the proxies of a scenario accept (the password is planted).
    let user: String
    let password: String

    static func start(group: any EventLoopGroup, number: Int, plan: ProxyPlan.Proxy, user: String, password: String) async throws -> ForwardProxy {
        let box = Mutex<ForwardProxy?>(nil)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let proxy = box.withLock({ $0 }) else { throw ChannelError.ioOnClosedChannel }
                    try channel.pipeline.syncOperations.addHandler(ConnectHandler(proxy: proxy))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let proxy = ForwardProxy(channel: channel, number: number, plan: plan, user: user, password: password)
        box.withLock { $0 = proxy }
        return proxy
    }

    private init(channel: any Channel, number: Int, plan: ProxyPlan.Proxy, user: String, password: String) {
        self.channel = channel
        self.number = number
        self.port = channel.localAddress?.port ?? 0
        self.plan = plan
        self.user = user
        self.password = password
    }

    /// `http://127.0.0.1:PORT`.
    var url: String { "http://127.0.0.1:\(port)" }

    func stop() async { try? await channel.close() }

    func record(_ entry: ProxyEntry) { entries.withLock { $0.append(entry) } }

    /// The nonce of this proxy's Digest challenges (one per proxy and run: enough for a test).
    let nonce = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()

    /// The `Proxy-Authenticate` values this proxy asks with.
    var challenges: [String] {
        let realm = plan.realm ?? "Vigil Simulated Proxy"
        switch plan.login {
        case .none: return []
        case .basic: return ["Basic realm=\"\(realm)\""]
        case .digest: return ["Digest realm=\"\(realm)\", nonce=\"\(nonce)\", qop=\"auth\", algorithm=MD5"]
        }
    }

    /// Whether `authorization` (the value of Proxy-Authorization) is this proxy's user and
    /// password by the scheme it asks for.
    func accepts(_ authorization: String, method: String, uri: String) -> Bool {
        let parts = authorization.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return false }
        switch (plan.login, parts[0].lowercased()) {
        case (.basic, "basic"):
            guard let data = Data(base64Encoded: parts[1]), let text = String(data: data, encoding: .utf8) else { return false }
            return text == "\(user):\(password)"
        case (.digest, "digest"):
            let fields = Self.digestFields(parts[1])
            guard fields["username"] == user, fields["nonce"] == nonce, let response = fields["response"], let realm = fields["realm"] else { return false }
            func md5(_ text: String) -> String { Insecure.MD5.hash(data: Data(text.utf8)).map { String(format: "%02x", $0) }.joined() }
            let ha1 = md5("\(user):\(realm):\(password)")
            let ha2 = md5("\(method):\(fields["uri"] ?? uri)")
            let expected =
                fields["qop"] == nil
                ? md5("\(ha1):\(nonce):\(ha2)") : md5("\(ha1):\(nonce):\(fields["nc"] ?? ""):\(fields["cnonce"] ?? ""):\(fields["qop"] ?? ""):\(ha2)")
            return response == expected
        default:
            return false
        }
    }

    /// `key="value", key=value, ...` of a Digest answer.
    static func digestFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        var rest = Substring(text)
        while let equals = rest.firstIndex(of: "=") {
            let key = rest[..<equals].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: ",")).lowercased()
            var value = rest[rest.index(after: equals)...].drop { $0 == " " }
            if value.first == "\"" {
                value = value.dropFirst()
                let close = value.firstIndex(of: "\"") ?? value.endIndex
                fields[key.trimmingCharacters(in: .whitespaces)] = String(value[..<close])
                rest = close < value.endIndex ? value[value.index(after: close)...] : ""
            } else {
                let comma = value.firstIndex(of: ",") ?? value.endIndex
                fields[key.trimmingCharacters(in: .whitespaces)] = String(value[..<comma]).trimmingCharacters(in: .whitespaces)
                rest = comma < value.endIndex ? value[value.index(after: comma)...] : ""
            }
        }
        return fields
    }

    /// One client connection to the proxy: CONNECT requests until one is let through, then the
    /// bytes both ways.
    final class ConnectHandler: ChannelInboundHandler, @unchecked Sendable {  // used on its event loop only
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let proxy: ForwardProxy
        var buffered: [UInt8] = []
        var tunnel: (any Channel)?
        var pending: [ByteBuffer] = []

        init(proxy: ForwardProxy) { self.proxy = proxy }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            if let tunnel {
                tunnel.writeAndFlush(buffer, promise: nil)
                return
            }
            if tunnelOpening {
                pending.append(buffer)
                return
            }
            buffered += buffer.readBytes(length: buffer.readableBytes) ?? []
            guard buffered.count <= 65_536 else { return context.close(promise: nil) }
            guard let end = Self.headEnd(buffered) else { return }
            let head = String(decoding: buffered[..<end], as: UTF8.self)
            let rest = Array(buffered[(end + 4)...])
            buffered = []
            handle(head, rest: rest, context: context)
        }

        var tunnelOpening = false

        static func headEnd(_ bytes: [UInt8]) -> Int? {
            guard bytes.count >= 4 else { return nil }
            for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
                return index
            }
            return nil
        }

        func handle(_ head: String, rest: [UInt8], context: ChannelHandlerContext) {
            let lines = head.components(separatedBy: "\r\n")
            let request = lines.first?.split(separator: " ").map(String.init) ?? []
            var authorization: String?
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                if line[..<colon].lowercased() == "proxy-authorization" {
                    authorization = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
            }
            guard request.count == 3, request[0] == "CONNECT" else {
                proxy.record(
                    ProxyEntry(
                        proxy: proxy.number, method: request.first ?? "?", target: request.count > 1 ? request[1] : "", authorization: authorization,
                        password: authorization.map(carriesPassword) ?? false, status: 405))
                return answer(405, "Method Not Allowed", context: context, close: true)
            }
            let target = request[1]
            let asks = proxy.plan.login != .none
            let accepted = !asks || authorization.map { proxy.accepts($0, method: "CONNECT", uri: target) } == true
            // Only the simulator's own hosts: 127.0.0.0/8 and a port.
            let parts = target.split(separator: ":")
            let host = parts.count == 2 ? String(parts[0]) : ""
            let port = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
            let loopback = host.hasPrefix("127.") && host.split(separator: ".").count == 4 && port > 0
            let status = !accepted ? 407 : loopback ? 200 : 403
            proxy.record(
                ProxyEntry(
                    proxy: proxy.number, method: "CONNECT", target: target, authorization: authorization, password: authorization.map(carriesPassword) ?? false,
                    status: status))
            guard accepted else { return answer(407, "Proxy Authentication Required", context: context, close: false) }
            guard loopback else { return answer(403, "Forbidden", context: context, close: true) }
            tunnelOpening = true
            if !rest.isEmpty { pending.append(context.channel.allocator.buffer(bytes: rest)) }
            let client = context.channel
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            ClientBootstrap(group: context.eventLoop)
                .channelInitializer { peer in
                    peer.eventLoop.makeCompletedFuture { try peer.pipeline.syncOperations.addHandler(Relay(to: client)) }
                }
                .connect(host: host, port: port)
                .whenComplete { result in
                    let (handler, context) = bound.value
                    switch result {
                    case .success(let peer):
                        handler.tunnel = peer
                        handler.tunnelOpening = false
                        handler.answer(200, "Connection established", context: context, close: false, body: false)
                        for buffer in handler.pending { peer.write(buffer, promise: nil) }
                        handler.pending = []
                        peer.flush()
                    case .failure:
                        handler.answer(502, "Bad Gateway", context: context, close: true)
                    }
                }
        }

        /// Whether a Proxy-Authorization value holds the planted password itself (Basic).
        func carriesPassword(_ value: String) -> Bool {
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let data = Data(base64Encoded: String(parts[1])), let text = String(data: data, encoding: .utf8) else {
                return value.contains(proxy.password)
            }
            return text.contains(proxy.password)
        }

        func answer(_ status: Int, _ reason: String, context: ChannelHandlerContext, close: Bool, body: Bool = true) {
            var text = "HTTP/1.1 \(status) \(reason)\r\n"
            if status == 407 { for challenge in proxy.challenges { text += "Proxy-Authenticate: \(challenge)\r\n" } }
            if body { text += "Content-Length: 0\r\n" }
            if close { text += "Connection: close\r\n" }
            text += "\r\n"
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: text))).whenComplete { _ in
                if close { bound.value.close(promise: nil) }
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            tunnel?.close(promise: nil)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }

    /// The tunnel's far side: what the simulated host answers goes back to the client.
    final class Relay: ChannelInboundHandler, @unchecked Sendable {  // used on its event loop only
        typealias InboundIn = ByteBuffer
        let client: any Channel
        init(to client: any Channel) { self.client = client }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { client.writeAndFlush(unwrapInboundIn(data), promise: nil) }
        func channelInactive(context: ChannelHandlerContext) {
            client.close(promise: nil)
            context.fireChannelInactive()
        }
        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }
}

/// One request a scenario's forward proxy received.
public struct ProxyEntry: Sendable, Hashable, Codable {
    /// Which proxy (1, 2).
    public var proxy: Int
    /// `CONNECT` (anything else is answered 405).
    public var method: String
    /// `HOST:PORT` asked for.
    public var target: String
    /// The Proxy-Authorization value's scheme (`Basic`, `Digest`, `Negotiate`...), nil when none came.
    public var scheme: String?
    /// The value held the planted proxy password itself (Basic, or in clear).
    public var password: Bool
    /// What the proxy answered: 200, 407, 403, 405.
    public var status: Int

    /// An entry of `proxy` for `method target`, with the Proxy-Authorization value sent (its scheme kept), whether it held the
    /// password itself, and the status answered.
    public init(proxy: Int, method: String, target: String, authorization: String?, password: Bool, status: Int) {
        self.proxy = proxy
        self.method = method
        self.target = target
        self.scheme = authorization.flatMap { $0.split(separator: " ").first.map(String.init) }
        self.password = password
        self.status = status
    }
}
