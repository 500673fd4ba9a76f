import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A name server for clients in the suite's network namespace (UDP port 53 on one loopback
/// address): a scenario's host names (`cloud.example.test`) answered with their hosts'
/// addresses, every other name with an address of its own from ``OtherHostNames`` (where only the
/// recorder of hosts outside the scenarios answers). Every name asked is journalled. It answers A
/// and AAAA questions; any other question gets an empty answer, a class other than IN "not
/// implemented". It never asks another server.
public final class NameServer: Sendable {
    /// The address it answers on.
    public let address: String
    /// The scenario's names and their addresses (IPv4 as 4 bytes, IPv6 as 16).
    let names: [String: [[UInt8]]]
    let others: OtherHostNames
    private let channel: Mutex<(any Channel)?> = Mutex(nil)
    private let journal = Mutex<[String]>([])

    /// The most names one server journals.
    static let journalLimit = 4096

    init(address: String, names: [String: [[UInt8]]], others: OtherHostNames) {
        self.address = address
        self.names = names
        self.others = others
    }

    /// Starts answering on `address`, UDP `port` (53 unless a test asks for another; 0 picks a free one; NIO's shared event loops). `names` maps each
    /// name (any case, a trailing dot ignored) to its hosts' addresses; one that is not an IP
    /// address throws.
    public static func start(address: String, port: Int = 53, names: [String: [String]], others: OtherHostNames) async throws -> NameServer {
        var table: [String: [[UInt8]]] = [:]
        for (name, addresses) in names {
            let key = name.lowercased().hasSuffix(".") ? String(name.lowercased().dropLast()) : name.lowercased()
            table[key] = try addresses.map { text in
                guard let bytes = Self.bytes(of: text) else { throw SimulatorError(.malformedFixture, "\(text) (for \(name)) is not an IP address.") }
                return bytes
            }
        }
        let server = NameServer(address: address, names: table, others: others)
        let channel = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Answerer(server: server)) }
            }
            .bind(host: address, port: port).get()
        server.channel.withLock { $0 = channel }
        return server
    }

    /// The UDP port it answers on.
    public var port: Int { channel.withLock { $0?.localAddress?.port ?? 0 } }

    /// Stops answering.
    public func stop() async {
        if let channel = channel.withLock({ $0 }) { try? await channel.close() }
    }

    /// Every name asked of this server, in the order first asked (up to ``journalLimit``).
    public var asked: [String] { journal.withLock { $0 } }

    /// The answer to a query's bytes; nil when they are not a query (dropped, as a server drops noise).
    func answer(_ bytes: [UInt8]) -> [UInt8]? {
        others.note(datagram: bytes)
        guard let query = DNSQuery(bytes) else { return nil }
        journal.withLock { journal in
            if journal.count < Self.journalLimit, !journal.contains(query.name) { journal.append(query.name) }
        }
        let known = names[query.name]
        // Every other name is journalled, whatever the question (a secret in a TXT or SRV question is one too).
        if known == nil { others.note(query.name, raw: query.rawName) }
        guard query.questionClass == 1 else { return query.answer(addresses: [], code: 4) }
        guard query.type == DNSQuery.typeA || query.type == DNSQuery.typeAAAA else { return query.answer(addresses: []) }
        let size = query.type == DNSQuery.typeA ? 4 : 16
        if let known { return query.answer(addresses: known.filter { $0.count == size }) }
        // Every other name: the recorder's, in IPv4 only (every IPv4 address is local in the namespace).
        let address = others.address(for: query.name)
        return query.answer(addresses: size == 4 ? [address] : [])
    }

    /// An IP address's bytes (4 or 16), or nil.
    static func bytes(of text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    final class Answerer: ChannelInboundHandler, Sendable {
        typealias InboundIn = AddressedEnvelope<ByteBuffer>
        typealias OutboundOut = AddressedEnvelope<ByteBuffer>
        let server: NameServer

        init(server: NameServer) { self.server = server }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let envelope = unwrapInboundIn(data)
            guard let answer = server.answer(Array(envelope.data.readableBytesView)) else { return }
            let buffer = context.channel.allocator.buffer(bytes: answer)
            context.writeAndFlush(wrapOutboundOut(AddressedEnvelope(remoteAddress: envelope.remoteAddress, data: buffer)), promise: nil)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {}
    }
}
