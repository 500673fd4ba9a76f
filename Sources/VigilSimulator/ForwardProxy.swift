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

    /// Every planted secret (users' passwords, tokens, every proxy's password), looked for in what
    /// a client sends the proxy.
    let search: @Sendable () -> CredentialSearch
    /// Each proxy's own password (by number), to tell whose a Proxy-Authorization holds.
    let proxySearches: [(Int, CredentialSearch)]
    /// The connections accepted and the tunnels opened, closed when the proxy stops.
    let children = Mutex<[ObjectIdentifier: any Channel]>([:])

    static func start(
        group: any EventLoopGroup, number: Int, plan: ProxyPlan.Proxy, user: String, password: String, search: @escaping @Sendable () -> CredentialSearch,
        proxySearches: [(Int, CredentialSearch)]
    ) async throws -> ForwardProxy {
        let box = Mutex<ForwardProxy?>(nil)
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let proxy = box.withLock({ $0 }) else { throw ChannelError.ioOnClosedChannel }
                    proxy.children.withLock { $0[ObjectIdentifier(channel)] = channel }
                    try channel.pipeline.syncOperations.addHandler(ConnectHandler(proxy: proxy))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let proxy = ForwardProxy(channel: channel, number: number, plan: plan, user: user, password: password, search: search, proxySearches: proxySearches)
        box.withLock { $0 = proxy }
        return proxy
    }

    private init(
        channel: any Channel, number: Int, plan: ProxyPlan.Proxy, user: String, password: String, search: @escaping @Sendable () -> CredentialSearch,
        proxySearches: [(Int, CredentialSearch)]
    ) {
        self.search = search
        self.proxySearches = proxySearches
        self.channel = channel
        self.number = number
        self.port = channel.localAddress?.port ?? 0
        self.plan = plan
        self.user = user
        self.password = password
    }

    /// `http://127.0.0.1:PORT`.
    var url: String { "http://127.0.0.1:\(port)" }

    /// Closes the listener, then every connection and tunnel still open.
    func stop() async {
        try? await channel.close()
        for child in children.withLock({ Array($0.values) }) { try? await child.close() }
    }

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
        var tunnelOpening = false
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
            process(context: context)
        }

        /// Every complete head buffered, in order (a client may send the next CONNECT at once).
        func process(context: ChannelHandlerContext) {
            while tunnel == nil, !tunnelOpening, context.channel.isActive {
                guard let end = Self.headEnd(buffered) else {
                    if buffered.count > 65_536 {
                        // Recorded with what it carried before it is refused.
                        proxy.record(
                            ProxyEntry(
                                proxy: proxy.number, method: "?", target: "", authorization: nil, password: false, status: 431,
                                secretElsewhere: proxy.search().find(in: buffered) != nil))
                        buffered = []
                        context.close(promise: nil)
                    }
                    return
                }
                let head = Array(buffered[..<end])
                buffered = Array(buffered[(end + 4)...])
                handle(head, context: context)
            }
        }

        static func headEnd(_ bytes: [UInt8]) -> Int? {
            guard bytes.count >= 4 else { return nil }
            for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
                return index
            }
            return nil
        }

        func handle(_ headBytes: [UInt8], context: ChannelHandlerContext) {
            let head = String(decoding: headBytes, as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n")
            let request = lines.first?.split(separator: " ").map(String.init) ?? []
            var authorization: String?
            var others: [String] = []
            for line in lines.dropFirst() {
                if let colon = line.firstIndex(of: ":"), line[..<colon].trimmingCharacters(in: .whitespaces).lowercased() == "proxy-authorization" {
                    authorization = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                } else {
                    others.append(line)
                }
            }
            // What a client may send a proxy: its own credential in Proxy-Authorization. Any
            // planted secret elsewhere in the head (the request line, another header), or a
            // user's secret inside Proxy-Authorization, is a credential disclosed to the proxy.
            let search = proxy.search()
            let outside = Array(((lines.first ?? "") + "\r\n" + others.joined(separator: "\r\n")).utf8)
            let value = authorization.map { Array($0.utf8) } ?? []
            let whose = proxy.proxySearches.filter { $0.1.find(in: value) != nil }.map(\.0)
            let elsewhere = search.find(in: outside) != nil || (whose.isEmpty && search.find(in: value) != nil)
            let number = proxy.number
            let sent = authorization
            @Sendable func entry(_ method: String, _ target: String, _ status: Int, tunnel: Int? = nil) -> ProxyEntry {
                var entry = ProxyEntry(
                    proxy: number, method: method, target: target, authorization: sent, password: whose.contains(number), status: status,
                    secretElsewhere: elsewhere)
                entry.passwordOf = whose
                entry.clearText = sent.map(Self.isClearText) ?? false
                entry.tunnelPort = tunnel
                return entry
            }
            guard request.count == 3, request[0] == "CONNECT" else {
                proxy.record(entry(request.first ?? "?", request.count > 1 ? request[1] : "", 405))
                return answer(405, "Method Not Allowed", context: context, close: true)
            }
            let target = request[1]
            let asks = proxy.plan.login != .none
            let accepted = !asks || authorization.map { proxy.accepts($0, method: "CONNECT", uri: target) } == true
            // Only the simulator's own hosts: an IPv4 address in 127.0.0.0/8 and a port.
            let parts = target.split(separator: ":")
            let host = parts.count == 2 ? String(parts[0]) : ""
            let port = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
            var address = in_addr()
            let loopback = inet_pton(AF_INET, host, &address) == 1 && UInt32(bigEndian: address.s_addr) >> 24 == 127 && (1...65535).contains(port)
            guard accepted, loopback else {
                proxy.record(entry("CONNECT", target, accepted ? 403 : 407))
                if !accepted { return answer(407, "Proxy Authentication Required", context: context, close: false) }
                return answer(403, "Forbidden", context: context, close: true)
            }
            tunnelOpening = true
            if !buffered.isEmpty {
                pending.append(context.channel.allocator.buffer(bytes: buffered))
                buffered = []
            }
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
                        handler.proxy.record(entry("CONNECT", target, 200, tunnel: peer.localAddress?.port))
                        handler.proxy.children.withLock { $0[ObjectIdentifier(peer)] = peer }
                        guard context.channel.isActive else {
                            peer.close(promise: nil)
                            return
                        }
                        handler.tunnel = peer
                        handler.tunnelOpening = false
                        handler.answer(200, "Connection established", context: context, close: false, body: false)
                        for buffer in handler.pending { peer.write(buffer, promise: nil) }
                        handler.pending = []
                        peer.flush()
                    case .failure:
                        handler.proxy.record(entry("CONNECT", target, 502))
                        handler.answer(502, "Bad Gateway", context: context, close: true)
                    }
                }
        }

        /// A Proxy-Authorization value that shows what it holds: Basic, or anything that is not a
        /// challenge-response scheme (Digest, NTLM, Negotiate).
        static func isClearText(_ value: String) -> Bool {
            let scheme = value.split(separator: " ").first?.lowercased() ?? ""
            return !["digest", "ntlm", "negotiate"].contains(scheme)
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
            proxy.children.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(context.channel)) }
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
    /// What the proxy answered: 200, 407, 403, 405, 431 (a head too large), 502.
    public var status: Int
    /// A planted secret in the head outside Proxy-Authorization (the request line, another
    /// header), or a user's secret inside it: a credential disclosed to the proxy.
    public var secretElsewhere: Bool
    /// Whose proxy password (by proxy number) the Proxy-Authorization value held, in any encoding.
    public var passwordOf: [Int] = []
    /// The Proxy-Authorization value shows what it holds (Basic, a scheme that is no challenge-response).
    public var clearText = false
    /// The tunnel's port on 127.0.0.1 towards the simulated host (a 200's entry): the host's
    /// connection from that port came through this proxy.
    public var tunnelPort: Int?

    /// An entry of `proxy` for `method target`: the Proxy-Authorization value's scheme (a known
    /// one's name, never the value), whether it held this proxy's password, the status answered,
    /// and whether a secret was elsewhere in the head.
    public init(proxy: Int, method: String, target: String, authorization: String?, password: Bool, status: Int, secretElsewhere: Bool = false) {
        self.proxy = proxy
        self.method = method
        self.target = target
        let known = ["basic", "digest", "ntlm", "negotiate", "bearer"]
        self.scheme = authorization.map { value in
            let first = value.split(separator: " ").first.map(String.init) ?? ""
            return known.contains(first.lowercased()) ? first.capitalized : "a value of another form"
        }
        self.password = password
        self.status = status
        self.secretElsewhere = secretElsewhere
    }
}
