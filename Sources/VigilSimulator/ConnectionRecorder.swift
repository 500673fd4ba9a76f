import Foundation
import NIOCore
import NIOSSL
import NIOTLS

/// What one connection's handlers share, on its event loop: its id in the journal and the
/// plaintext the client sent since its last finished request (for a head that fails to parse).
final class ConnectionState {
    let id: Int
    let journal: Journal
    /// At most ``captureLimit`` bytes, the newest kept.
    private(set) var capture: [UInt8] = []
    static let captureLimit = 64 * 1024
    /// A request is being read or answered (set by the last handler).
    var busy = false
    /// The client closed its side (half-closure): the connection closes once nothing is busy.
    var inputClosed = false

    init(id: Int, journal: Journal) {
        self.id = id
        self.journal = journal
    }

    func captured(_ buffer: ByteBuffer) {
        capture += buffer.readableBytesView.prefix(Self.captureLimit)
        if capture.count > Self.captureLimit { capture.removeFirst(capture.count - Self.captureLimit) }
    }

    /// A request ended: what follows belongs to the next one.
    func requestEnded() { capture.removeAll(keepingCapacity: true) }

    func update(_ change: (inout ConnectionEntry) -> Void) { journal.updateConnection(id, change) }
}

/// The first handler of a connection, on the raw bytes: reads the TLS ClientHello (server name,
/// offered versions) as it passes; counts plain HTTP's bytes as application data; and looks for
/// a credential in every byte a client sends in clear text (plain HTTP, or anything but TLS on a
/// TLS port), whether or not it parses as a request.
final class RawConnectionRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let state: ConnectionState
    private let tls: Bool
    private let search: @Sendable () -> CredentialSearch
    /// The first bytes of a TLS connection, until the ClientHello is whole (at most ``helloLimit``).
    private var hello: [UInt8] = []
    private var helloDone = false
    /// The client sends clear text (plain HTTP, or not TLS on a TLS port).
    private var clear: Bool
    /// The last bytes of clear text searched, so that a secret split across reads is found.
    private var tail: [UInt8] = []
    static let overlap = 4096
    /// The most of a ClientHello read: a handshake message may take 64 KiB and more; what is
    /// longer is searched as it came, not parsed.
    static let helloLimit = 65_536 + 5 * 16

    init(state: ConnectionState, tls: Bool, search: @escaping @Sendable () -> CredentialSearch) {
        self.state = state
        self.tls = tls
        self.clear = !tls
        self.search = search
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if tls, !helloDone, hello.isEmpty, let first = buffer.readableBytesView.first, first != 0x16 {
            // Not TLS at all on a TLS port (a client retrying http:// on it): clear text.
            clear = true
            helloDone = true
            state.update { $0.clearText = true }
        }
        if clear {
            // Plain HTTP's bytes are its application data (and feed the parser's capture); clear
            // text on a TLS port is searched only.
            if !tls {
                state.captured(buffer)
                let count = buffer.readableBytes
                state.update { $0.applicationBytes += count }
            }
            search(Array(buffer.readableBytesView))
        } else if !helloDone {
            hello += buffer.readableBytesView.prefix(Self.helloLimit - hello.count)
            if let parsed = ClientHello(record: hello) {
                helloDone = true
                // The ClientHello crosses the network in clear, before any certificate is seen: a
                // secret in its server name or ALPN names (read as names: split by dots, in any
                // case), or anywhere else in it (the session id, an extension), is disclosed to
                // every observer.
                let search = search()
                var found: [String] = []
                for name in [parsed.serverName].compactMap({ $0 }) + parsed.protocols {
                    if let how = search.findInName(Array(name.utf8)) { found.append("the ClientHello's server name or ALPN (\(how))") }
                }
                if found.isEmpty, let how = search.find(in: hello) { found.append("the ClientHello (\(how))") }
                hello = []
                state.update {
                    $0.serverName = parsed.serverName
                    $0.offeredVersions = parsed.versions
                    if !found.isEmpty { $0.secretInClientHello = found }
                }
            } else if hello.count >= Self.helloLimit || (hello.first.map { $0 != 0x16 } ?? false) {
                // Too long to parse, or not a ClientHello: still searched as it came.
                helloDone = true
                if let how = search().find(in: hello) { state.update { $0.secretInClientHello = ["the ClientHello (\(how))"] } }
                hello = []
            }
        }
        context.fireChannelRead(data)
    }

    /// Looks for a credential in clear text (with the tail of what came before).
    private func search(_ bytes: [UInt8]) {
        let window = tail + bytes
        tail = Array(window.suffix(Self.overlap))
        let found = SimulatedSite.findings(raw: window, search: search(), what: "the bytes sent")
        guard !found.isEmpty else { return }
        state.update { entry in
            var all = entry.credentialInClear ?? []
            for place in found where !all.contains(place) { all.append(place) }
            entry.credentialInClear = all
        }
    }

    /// The client closed its side of the connection: the simulator closes its own at once when no
    /// request is under way (after the answer otherwise), as a server does; a connection the
    /// client has left must not look open to the suite.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            state.inputClosed = true
            context.fireUserInboundEventTriggered(event)
            if !state.busy { context.close(promise: nil) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// The handler after TLS: counts the application data the client sent and records how the
/// handshake ended.
final class TLSConnectionRecorder: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let state: ConnectionState
    private var completed = false

    init(state: ConnectionState) { self.state = state }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        state.captured(buffer)
        let count = buffer.readableBytes
        state.update { $0.applicationBytes += count }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted(let negotiated) = event {
            completed = true
            if let negotiated { state.update { $0.applicationProtocol = String(negotiated.prefix(32)) } }
            // The identity the client disclosed to this host, if it presented one.
            let presented = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self).peerCertificate
            let subject = presented.map { Self.subject(of: $0) }
            state.update {
                $0.handshake = "completed"
                if let subject { $0.clientCertificate = subject }
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !completed {
            let reason = String(String(describing: error).prefix(300))
            state.update { entry in
                if entry.handshake != "failed" {
                    entry.handshake = "failed"
                    entry.handshakeError = reason
                }
            }
        }
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !completed { state.update { if $0.handshake == "none" { $0.handshake = "failed" } } }
        context.fireChannelInactive()
    }

    /// A certificate as the journal shows it: its common name, as NIOSSL reads it.
    static func subject(of certificate: NIOSSLCertificate) -> String {
        let text = certificate.description
        if let range = text.range(of: ";common_name=") {
            return "CN=" + String(text[range.upperBound...].prefix { $0 != ";" && $0 != ">" }.prefix(200))
        }
        return "a certificate without a common name"
    }
}

/// The parts of a TLS ClientHello the journal keeps.
struct ClientHello: Equatable {
    var serverName: String?
    var versions: [String]
    /// The protocols offered by ALPN (`h2`, `http/1.1`), as sent.
    var protocols: [String] = []

    /// Parses the ClientHello at the start of `bytes` (TLS records); nil until it is whole, or
    /// when the bytes are not a ClientHello.
    init?(record bytes: [UInt8]) {
        // Handshake bytes from consecutive handshake records.
        var handshake: [UInt8] = []
        var offset = 0
        while offset + 5 <= bytes.count, bytes[offset] == 0x16 {
            let length = Int(bytes[offset + 3]) << 8 | Int(bytes[offset + 4])
            guard offset + 5 + length <= bytes.count else { break }
            handshake += bytes[(offset + 5)..<(offset + 5 + length)]
            offset += 5 + length
            if handshake.count >= 4 {
                let needed = 4 + (Int(handshake[1]) << 16 | Int(handshake[2]) << 8 | Int(handshake[3]))
                if handshake.count >= needed { break }
            }
        }
        guard handshake.count >= 4, handshake[0] == 0x01 else { return nil }
        let length = Int(handshake[1]) << 16 | Int(handshake[2]) << 8 | Int(handshake[3])
        guard handshake.count >= 4 + length else { return nil }
        var reader = Reader(bytes: Array(handshake[4..<(4 + length)]))
        guard let legacyVersion = reader.integer(2), reader.skip(32), let session = reader.integer(1), reader.skip(session),
            let suites = reader.integer(2), reader.skip(suites), let compression = reader.integer(1), reader.skip(compression)
        else { return nil }
        var serverName: String?
        var offered: [Int] = []
        var protocols: [String] = []
        if let total = reader.integer(2), var extensions = reader.take(total).map(Reader.init) {
            while let type = extensions.integer(2), let size = extensions.integer(2), let data = extensions.take(size) {
                var body = Reader(bytes: data)
                switch type {
                case 0x0000:
                    if body.integer(2) != nil, body.integer(1) == 0, let count = body.integer(2), let name = body.take(count) {
                        serverName = String(decoding: name, as: UTF8.self)
                    }
                case 0x0010:
                    if let total = body.integer(2), var list = body.take(total).map(Reader.init) {
                        while let count = list.integer(1), let name = list.take(count) { protocols.append(String(decoding: name, as: UTF8.self)) }
                    }
                case 0x002b:
                    if let count = body.integer(1) {
                        for _ in 0..<(count / 2) { if let version = body.integer(2) { offered.append(version) } }
                    }
                default:
                    break
                }
            }
        }
        if offered.isEmpty { offered = [legacyVersion] }
        self.serverName = serverName
        self.versions = offered.compactMap(Self.name)
        self.protocols = protocols
    }

    /// `1.3` for 0x0304 ...; GREASE and unknown values are left out.
    static func name(_ version: Int) -> String? {
        switch version {
        case 0x0304: return "1.3"
        case 0x0303: return "1.2"
        case 0x0302: return "1.1"
        case 0x0301: return "1.0"
        case 0x0300: return "SSL 3.0"
        default: return nil
        }
    }

    struct Reader {
        var bytes: [UInt8]
        var position = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        mutating func integer(_ width: Int) -> Int? {
            guard position + width <= bytes.count else { return nil }
            defer { position += width }
            return bytes[position..<(position + width)].reduce(0) { $0 << 8 | Int($1) }
        }

        mutating func skip(_ count: Int) -> Bool {
            guard position + count <= bytes.count else { return false }
            position += count
            return true
        }

        mutating func take(_ count: Int) -> [UInt8]? {
            guard position + count <= bytes.count else { return nil }
            defer { position += count }
            return Array(bytes[position..<(position + count)])
        }
    }
}
