import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization

/// In a run's own network namespace, where every IPv4 address is this machine's own (an "AnyIP"
/// route: `ip route add local 0.0.0.0/0 dev lo`): the listener for every host that is not a
/// simulated one, on the ports clients use (80, 443, 8080, 8443). A client that talks to a crash
/// reporter, an update server, a telemetry endpoint or a second loopback address reaches it, and
/// nothing leaves the machine. It completes TCP, reads the TLS ClientHello's server name, answers
/// TLS with a certificate from a CA the client does not trust (so a client that checks nothing
/// sends its request, which is kept), and keeps every byte sent in clear. The address the client
/// dialled is the connection's own local address.
public final class OtherHostRecorder: Sendable {
    /// One connection to a host outside the scenario.
    public struct Contact: Sendable, Hashable, Codable {
        /// The address and port the client dialled (`192.0.2.1:443`).
        public var destination: String
        /// It began a TLS handshake.
        public var tls: Bool
        /// The server name its ClientHello asked for, when one was seen.
        public var serverName: String?
        /// Bytes received in clear, or decrypted after a TLS handshake (the ClientHello not counted).
        public var bytes: Int
    }

    /// The ports listened on.
    public static let ports = [80, 443, 8080, 8443]
    /// The most kept of one connection's bytes.
    static let keep = 64 * 1024
    /// The most connections kept in one run.
    static let maximumConnections = 512

    private let channels = Mutex<[any Channel]>([])
    private let records = Mutex<[Int: Record]>([:])
    private let next = Atomic<Int>(0)

    struct Record {
        var contact: Contact
        var hello: [UInt8] = []
        var clear: [UInt8] = []
    }

    /// Listens on 0.0.0.0 on each of ``ports`` (NIO's shared event loops), answering TLS with
    /// `certificate` and `key` (PEM files).
    public static func start(certificate: String, key: String) async throws -> OtherHostRecorder {
        let group = MultiThreadedEventLoopGroup.singleton
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        tls.minimumTLSVersion = .tlsv1
        let context = try NIOSSLContext(configuration: tls)
        let recorder = OtherHostRecorder()
        for port in ports {
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let id = recorder.next.wrappingAdd(1, ordering: .relaxed).oldValue
                        // At most ``maximumConnections`` kept: a client that retries forever cannot
                        // take the run's memory; the later ones are closed at once.
                        guard id < OtherHostRecorder.maximumConnections else {
                            channel.close(promise: nil)
                            return
                        }
                        let destination = channel.localAddress.map { "\($0.ipAddress ?? "?"):\($0.port ?? 0)" } ?? "?"
                        recorder.records.withLock { $0[id] = Record(contact: Contact(destination: destination, tls: false, serverName: nil, bytes: 0)) }
                        try channel.pipeline.syncOperations.addHandler(Sniffer(recorder: recorder, id: id, context: context))
                    }
                }
                .bind(host: "0.0.0.0", port: port).get()
            recorder.channels.withLock { $0.append(channel) }
        }
        return recorder
    }

    private init() {}

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
                let found = SimulatedSite.findings(raw: record.clear, search: search, what: "what it sent")
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

        init(recorder: OtherHostRecorder, id: Int) {
            self.recorder = recorder
            self.id = id
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let bytes = Array(unwrapInboundIn(data).readableBytesView)
            let room = OtherHostRecorder.keep - seen.count
            if room > 0 { seen += bytes.prefix(room) }
            let kept = seen
            recorder.update(id) {
                $0.clear = kept
                $0.contact.bytes += bytes.count
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
