import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// In a run's own network namespace, where every IPv4 address is this machine's own (an "AnyIP"
/// route: `ip route add local 0.0.0.0/0 dev lo`) and every TCP connection or UDP datagram to a
/// port outside the ephemeral range (where the simulated hosts listen) is redirected here by the
/// namespace's nftables rules: the listener for every host that is not a simulated one. A client
/// that talks to a crash reporter, an update server, a telemetry endpoint, a second loopback
/// address or the scenario's own host on another port reaches it, and nothing leaves the machine.
/// It completes TCP, reads the TLS ClientHello's server name, answers TLS with a certificate from
/// a CA the client does not trust (so a client that checks nothing sends its request, which is
/// kept), and keeps every byte sent in clear, and every UDP datagram. The address the client
/// dialled is read from the connection's NAT record (`SO_ORIGINAL_DST`); the name it looked up
/// for it, from ``OtherHostNames``.
public final class OtherHostRecorder: Sendable {
    /// One connection (or one UDP sender's datagrams) to a host outside the scenario.
    public struct Contact: Sendable, Hashable, Codable {
        /// The address and port the client dialled (`127.1.0.3:443`); for UDP, `udp`.
        public var destination: String
        /// The name the client looked up for that address, when it asked the run's name servers.
        public var name: String?
        /// It began a TLS handshake.
        public var tls: Bool
        /// The server name its ClientHello asked for, when one was seen.
        public var serverName: String?
        /// Bytes received in clear, or decrypted after a TLS handshake (the ClientHello not
        /// counted); for UDP, every datagram's.
        public var bytes: Int
        /// UDP datagrams, not a TCP connection.
        public var udp: Bool = false

        /// `telemetry.example.net:443` (the name looked up: the address it was given depends on
        /// the order names were asked in, so it is not shown), or the address dialled.
        public var place: String {
            guard let name, let colon = destination.lastIndex(of: ":") else { return destination }
            return "\(name)\(destination[colon...])"
        }
    }

    /// The most kept of one connection's bytes (or one sender's datagrams).
    public static let keep = 256 * 1024
    /// The most connections (and UDP senders) kept in one run; with ``keep``, the recorder's
    /// memory is bounded. What goes past either is counted (``dropped``) and reported.
    static let maximumConnections = 1024
    /// `SO_ORIGINAL_DST` (linux/netfilter_ipv4.h) at level `SOL_IP`, and `IP6T_SO_ORIGINAL_DST`
    /// (linux/netfilter_ipv6/ip6_tables.h) at `SOL_IPV6`: both 80.
    static let originalDestination: Int32 = 80

    private let channels = Mutex<[any Channel]>([])
    private let records = Mutex<[Int: Record]>([:])
    private let next = Atomic<Int>(0)
    private let ports = Mutex<(tcp: Int, udp: Int, tcp6: Int?, udp6: Int?)>((0, 0, nil, nil))
    private let droppedConnections = Atomic<Int>(0)
    private let truncatedConnections = Atomic<Int>(0)
    let names: OtherHostNames?

    struct Record {
        var contact: Contact
        var hello: [UInt8] = []
        var clear: [UInt8] = []
    }

    /// The TCP port every redirected connection reaches (on every address).
    public var port: Int { ports.withLock { $0.tcp } }
    /// The UDP port every redirected datagram reaches (127.0.0.1).
    public var udpPort: Int { ports.withLock { $0.udp } }
    /// The same for IPv6 (on `::`, `::1`); nil where the machine has no IPv6.
    public var ipv6Ports: (tcp: Int, udp: Int)? { ports.withLock { p in p.tcp6.flatMap { tcp in p.udp6.map { (tcp, $0) } } } }

    /// Listens on 0.0.0.0 (TCP) and 127.0.0.1 (UDP), each on a free port (NIO's shared event
    /// loops), answering TLS with `certificate` and `key` (PEM files); `names` tells which name
    /// an address was given for.
    public static func start(certificate: String, key: String, names: OtherHostNames? = nil) async throws -> OtherHostRecorder {
        let group = MultiThreadedEventLoopGroup.singleton
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        tls.minimumTLSVersion = .tlsv1
        // HTTP/2 offered too: a client that requires it (gRPC, OTLP) then sends its requests.
        tls.applicationProtocols = ["h2", "http/1.1"]
        let context = try NIOSSLContext(configuration: tls)
        let recorder = OtherHostRecorder(names: names)
        let channel = try await listen(group: group, host: "0.0.0.0", recorder: recorder, context: context)
        let datagrams = try await DatagramBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(DatagramKeeper(recorder: recorder)) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        recorder.channels.withLock { $0.append(contentsOf: [channel, datagrams]) }
        // IPv6, where the machine has it: its own listeners (the namespace redirects to ::1).
        let channel6 = try? await listen(group: group, host: "::", recorder: recorder, context: context)
        let datagrams6 = try? await DatagramBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(DatagramKeeper(recorder: recorder)) }
            }
            .bind(host: "::1", port: 0).get()
        recorder.channels.withLock { $0.append(contentsOf: [channel6, datagrams6].compactMap { $0 }) }
        recorder.ports.withLock {
            $0 = (channel.localAddress?.port ?? 0, datagrams.localAddress?.port ?? 0, channel6?.localAddress?.port, datagrams6?.localAddress?.port)
        }
        return recorder
    }

    private init(names: OtherHostNames?) { self.names = names }

    /// The TCP listener on `host` (`0.0.0.0` or `::`, IPv6 only), a free port.
    static func listen(group: any EventLoopGroup, host: String, recorder: OtherHostRecorder, context: NIOSSLContext) async throws -> any Channel {
        var bootstrap = ServerBootstrap(group: group).serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        if host.contains(":") { bootstrap = bootstrap.serverChannelOption(.socket(SocketOptionLevel(IPPROTO_IPV6), SocketOptionName(IPV6_V6ONLY)), value: 1) }
        return
            try await bootstrap
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard let id = recorder.newRecord(destination: channel.localAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "?")
                    else {
                        // At most ``maximumConnections`` kept: a client that retries forever cannot
                        // take the run's memory; the later ones are closed at once (and counted).
                        channel.close(promise: nil)
                        return
                    }
                    // The address the client dialled, before the namespace's redirect.
                    if let provider = channel as? any SocketOptionProvider {
                        if channel.localAddress?.protocol == .inet6 {
                            let dialled: EventLoopFuture<sockaddr_in6> = provider.unsafeGetSocketOption(
                                level: SocketOptionLevel(IPPROTO_IPV6), name: SocketOptionName(Self.originalDestination))
                            dialled.whenSuccess { recorder.dialled(id, Self.address($0)) }
                        } else {
                            let dialled: EventLoopFuture<sockaddr_in> = provider.unsafeGetSocketOption(
                                level: SocketOptionLevel(IPPROTO_IP), name: SocketOptionName(Self.originalDestination))
                            dialled.whenSuccess { recorder.dialled(id, Self.address($0)) }
                        }
                    }
                    try channel.pipeline.syncOperations.addHandler(Sniffer(recorder: recorder, id: id, context: context))
                }
            }
            .bind(host: host, port: 0).get()
    }

    /// `[address]:port` of a `sockaddr_in6`, or nil when it is not one.
    static func address(_ address: sockaddr_in6) -> (host: String, port: UInt16)? {
        guard address.sin6_family == sa_family_t(AF_INET6) else { return nil }
        var copy = address.sin6_addr
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &copy, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return (String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), UInt16(bigEndian: address.sin6_port))
    }

    /// The address a connection's client dialled (`host`, IPv6 without brackets), and the name it
    /// looked up for it: recorded as the contact's destination.
    func dialled(_ id: Int, _ address: (host: String, port: UInt16)?) {
        guard let address else { return }
        let name = names?.name(for: address.host)
        update(id) {
            $0.contact.destination = address.host.contains(":") ? "[\(address.host)]:\(address.port)" : "\(address.host):\(address.port)"
            $0.contact.name = name
        }
    }

    /// Connections or senders not kept (past ``maximumConnections``), and those cut at ``keep``:
    /// what they sent was not searched.
    public var dropped: (connections: Int, truncated: Int) {
        (droppedConnections.load(ordering: .relaxed), truncatedConnections.load(ordering: .relaxed))
    }

    /// A connection's bytes went past ``keep``: counted once per connection by its handler.
    func truncated() { truncatedConnections.wrappingAdd(1, ordering: .relaxed) }

    /// A new record, or nil when ``maximumConnections`` are kept already (counted).
    func newRecord(destination: String, udp: Bool = false) -> Int? {
        let id = next.wrappingAdd(1, ordering: .relaxed).oldValue
        guard id < Self.maximumConnections else {
            droppedConnections.wrappingAdd(1, ordering: .relaxed)
            return nil
        }
        records.withLock { $0[id] = Record(contact: Contact(destination: destination, tls: false, serverName: nil, bytes: 0, udp: udp)) }
        return id
    }

    /// `a.b.c.d:port` of a `sockaddr_in`, or nil when it is not one.
    static func address(_ address: sockaddr_in) -> (host: String, port: UInt16)? {
        guard address.sin_family == sa_family_t(AF_INET) else { return nil }
        let host = UInt32(bigEndian: address.sin_addr.s_addr)
        return ("\(host >> 24).\((host >> 16) & 0xFF).\((host >> 8) & 0xFF).\(host & 0xFF)", UInt16(bigEndian: address.sin_port))
    }

    /// Every connection so far, in the order they came.
    public var contacts: [Contact] { records.withLock { records in records.keys.sorted().compactMap { records[$0]?.contact } } }

    /// Where a planted secret reached a host outside the scenario: the contact and where in what it sent.
    public func secrets(_ planted: [PlantedSecret]) -> [(contact: Contact, found: String)] {
        let search = CredentialSearch(planted: planted)
        return records.withLock { records in
            records.keys.sorted().compactMap { id -> (Contact, String)? in
                guard let record = records[id] else { return nil }
                if let name = record.contact.serverName, let how = search.findInName(Array(name.utf8)) { return (record.contact, "its server name (\(how))") }
                if let how = search.find(in: record.hello) { return (record.contact, "its ClientHello (\(how))") }
                let found = SimulatedSite.findings(raw: record.clear, search: search, what: record.contact.udp ? "its datagrams" : "what it sent")
                return found.isEmpty ? nil : (record.contact, found.joined(separator: ", "))
            }
        }
    }

    /// Stops listening.
    public func stop() async {
        for channel in channels.withLock({ $0 }) { try? await channel.close() }
    }

    func update(_ id: Int, _ change: (inout Record) -> Void) {
        records.withLock { records in
            if var record = records[id] {
                change(&record)
                records[id] = record
            }
        }
    }

    /// Every UDP datagram: kept by sender (one record per source port).
    final class DatagramKeeper: ChannelInboundHandler, @unchecked Sendable {  // on its event loop only
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        let recorder: OtherHostRecorder
        /// Each sender's record and how many bytes it holds.
        var senders: [Int: (id: Int, kept: Int)] = [:]

        init(recorder: OtherHostRecorder) { self.recorder = recorder }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            let port = envelope.remoteAddress.port ?? 0
            let bytes = Array(envelope.data.readableBytesView)
            // A sender whose record is full (or a port used again later) gets a new one.
            var sender = senders[port]
            if sender == nil || sender!.kept + bytes.count + 1 > OtherHostRecorder.keep {
                guard let new = recorder.newRecord(destination: "udp", udp: true) else { return }
                sender = (new, 0)
            }
            guard var sender else { return }
            let kept = Array(bytes.prefix(OtherHostRecorder.keep - 1))
            if kept.count < bytes.count { recorder.truncated() }
            sender.kept += kept.count + 1
            senders[port] = sender
            recorder.update(sender.id) {
                $0.contact.bytes += bytes.count
                // Datagrams apart: a NUL between them, so that no secret is made of two.
                $0.clear += kept + [0]
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {}
    }

    /// The first handler: TLS (a handshake record first) gets a TLS server after it and the
    /// ClientHello kept; clear text is kept as it comes.
    final class Sniffer: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {  // on its event loop only
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        let recorder: OtherHostRecorder
        let id: Int
        let context: NIOSSLContext
        var decided = false
        var tls = false
        var hello: [UInt8] = []

        init(recorder: OtherHostRecorder, id: Int, context: NIOSSLContext) {
            self.recorder = recorder
            self.id = id
            self.context = context
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            let bytes = Array(buffer.readableBytesView)
            if !decided {
                decided = true
                tls = bytes.first == 0x16
                if tls {
                    let handler = NIOSSLServerHandler(context: self.context)
                    let capture = Capture(recorder: recorder, id: id)
                    try? context.pipeline.syncOperations.addHandler(handler, position: .after(self))
                    try? context.pipeline.syncOperations.addHandler(capture, position: .after(handler))
                } else {
                    try? context.pipeline.syncOperations.addHandler(Capture(recorder: recorder, id: id), position: .after(self))
                }
            }
            if tls, hello.count < OtherHostRecorder.keep {
                hello += bytes.prefix(OtherHostRecorder.keep - hello.count)
                let parsed = ClientHello(record: hello)
                let kept = hello
                recorder.update(id) {
                    $0.contact.tls = true
                    $0.hello = kept
                    if let name = parsed?.serverName { $0.contact.serverName = name }
                }
            }
            context.fireChannelRead(data)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }

    /// What the client sent in clear (or decrypted): kept; an HTTP request's head answered 204
    /// and the connection closed.
    final class Capture: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {  // on its event loop only
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let recorder: OtherHostRecorder
        let id: Int
        var seen: [UInt8] = []
        var continued = false
        var answered = false
        var cut = false
        /// HTTP/2 (its preface came): the streams answered so far, and where the next frame starts.
        var http2: Set<UInt32>?
        var frameOffset = 0

        init(recorder: OtherHostRecorder, id: Int) {
            self.recorder = recorder
            self.id = id
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = Array(unwrapInboundIn(data).readableBytesView)
            let room = OtherHostRecorder.keep - seen.count
            if room > 0 { seen += bytes.prefix(room) }
            if bytes.count > room, !cut {
                cut = true
                recorder.truncated()
            }
            let kept = seen
            recorder.update(id) {
                $0.clear = kept
                $0.contact.bytes += bytes.count
            }
            // HTTP/2 by prior knowledge (or agreed by ALPN): its preface holds an empty line, so
            // it is told apart before HTTP/1.1's rules; the client is answered as an HTTP/2
            // server answers, so that it sends its requests.
            let preface = HTTP2Frames.preface
            if http2 == nil, seen.starts(with: preface.prefix(min(seen.count, preface.count))) {
                guard seen.count >= preface.count else { return }
                http2 = []
                frameOffset = preface.count
                // Our SETTINGS (a stream window as large as what is kept), the acknowledgement of
                // the client's, and the connection's window opened as far: the client may send
                // everything the recorder keeps.
                let window = UInt32(OtherHostRecorder.keep)
                let size = [UInt8(window >> 24), UInt8(window >> 16 & 0xFF), UInt8(window >> 8 & 0xFF), UInt8(window & 0xFF)]
                let frames: [UInt8] =
                    [0, 0, 6, 4, 0, 0, 0, 0, 0, 0, 4] + size + [0, 0, 0, 4, 1, 0, 0, 0, 0] + [0, 0, 4, 8, 0, 0, 0, 0, 0] + size
                context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: frames)), promise: nil)
            }
            if var answeredStreams = http2 {
                // Only the frames that came since the last read are looked at.
                for stream in HTTP2Frames.endedStreams(seen, from: &frameOffset) where !answeredStreams.contains(stream) {
                    answeredStreams.insert(stream)
                    // HEADERS, END_STREAM and END_HEADERS: `:status: 204` (HPACK static index 9).
                    let id = [UInt8(stream >> 24 & 0x7F), UInt8(stream >> 16 & 0xFF), UInt8(stream >> 8 & 0xFF), UInt8(stream & 0xFF)]
                    context.writeAndFlush(NIOAny(context.channel.allocator.buffer(bytes: [0, 0, 1, 1, 5] + id + [0x89])), promise: nil)
                }
                http2 = answeredStreams
                return
            }
            guard !answered else { return }
            if !continued, HTTPHead.end(seen) != nil, HTTPHead.header("expect", in: seen)?.lowercased() == "100-continue" {
                // The body follows only when asked for: ask.
                continued = true
                var go = context.channel.allocator.buffer(capacity: 32)
                go.writeString("HTTP/1.1 100 Continue\r\n\r\n")
                context.writeAndFlush(NIOAny(go), promise: nil)
            }
            if seen.count >= OtherHostRecorder.keep || HTTPHead.requestComplete(seen) {
                answered = true
                var answer = context.channel.allocator.buffer(capacity: 64)
                answer.writeString("HTTP/1.1 204 No Content\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
                let channel = context.channel
                context.writeAndFlush(NIOAny(answer)).whenComplete { _ in channel.close(promise: nil) }
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }
    }

    /// Where an HTTP request's head and body end, so that the whole request (its body too) is kept
    /// before the answer.
    enum HTTPHead {
        /// The index just past the head's empty line; nil until it came.
        static func end(_ bytes: [UInt8]) -> Int? {
            guard bytes.count >= 4 else { return nil }
            for index in 3..<bytes.count where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
                return index + 1
            }
            return nil
        }

        /// A header's value in the head, by its lower-case name.
        static func header(_ name: String, in bytes: [UInt8]) -> String? {
            guard let end = end(bytes) else { return nil }
            for line in String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n").dropFirst() {
                let parts = line.split(separator: ":", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == name { return parts[1].trimmingCharacters(in: .whitespaces) }
            }
            return nil
        }

        /// The head and its body (Content-Length, or chunked to its last chunk) have come; bytes
        /// that are not HTTP are never complete (they are kept until the client stops).
        static func requestComplete(_ bytes: [UInt8]) -> Bool {
            guard let end = end(bytes) else { return false }
            if header("transfer-encoding", in: bytes)?.lowercased().contains("chunked") == true {
                let tail = Array(bytes[end...])
                return tail.count >= 5 && Array(tail.suffix(5)) == Array("0\r\n\r\n".utf8)
            }
            let length = header("content-length", in: bytes).flatMap { Int($0) } ?? 0
            return bytes.count - end >= length
        }
    }
}
