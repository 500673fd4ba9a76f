import NIOCore
import NIOHPACK
import Testing

@testable import VigilSimulator

/// HTTP/2 sent in clear (h2c by prior knowledge) is searched as the client meant it: header blocks
/// HPACK-decoded with Huffman coding, across CONTINUATION frames, with padding and priority; DATA
/// joined. A secret that never appears as plain bytes on the wire is still found.
@Suite("HTTP/2 frames in clear")
struct HTTP2FramesTests {
    static let secret = "alice-test-password"

    static func frame(_ type: UInt8, flags: UInt8, stream: UInt32 = 1, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF), type, flags]
            + [UInt8(stream >> 24), UInt8((stream >> 16) & 0xFF), UInt8((stream >> 8) & 0xFF), UInt8(stream & 0xFF)] + payload
    }

    /// A request with the secret in a header value, Huffman-coded (NIO's encoder, as nghttp2 does),
    /// its block split over HEADERS (padded, with priority) and a CONTINUATION, then a DATA frame.
    static func request(body: [UInt8]) throws -> [UInt8] {
        var encoder = HPACKEncoder(allocator: ByteBufferAllocator(), useHuffmanEncoding: true)
        var block = ByteBuffer()
        try encoder.encode(
            headers: HPACKHeaders([(":method", "POST"), (":path", "/v1/ping"), (":scheme", "http"), (":authority", "x"), ("x-api-key", secret)]),
            to: &block)
        let bytes = Array(block.readableBytesView)
        let half = bytes.count / 2
        let headers = [3] + [0, 0, 0, 0, 16] + Array(bytes[..<half]) + [0, 0, 0]  // pad length 3, priority 5 bytes
        return HTTP2Frames.preface + frame(4, flags: 0, []) + frame(1, flags: 0x08 | 0x20, headers)
            + frame(9, flags: 0x04, Array(bytes[half...])) + frame(0, flags: 0x01, body)
    }

    @Test func aHuffmanCodedHeaderIsFound() throws {
        let wire = try Self.request(body: Array("{}".utf8))
        // Not there as plain bytes: only the decoder sees it.
        #expect(!String(decoding: wire, as: UTF8.self).contains(Self.secret))
        let frames = try #require(HTTP2Frames.decode(wire))
        #expect(frames.headers.contains { $0.name == "x-api-key" && $0.value == Self.secret })
        #expect(frames.data == Array("{}".utf8))
        let search = CredentialSearch(planted: [PlantedSecret(what: "the password", value: Self.secret)])
        let found = SimulatedSite.findings(raw: wire, search: search, what: "what it sent")
        #expect(found.contains { $0.hasPrefix("the x-api-key header, HTTP/2") }, "\(found)")
    }

    @Test func aSecretInTheBodyIsFound() throws {
        let wire = try Self.request(body: Array("{\"password\":\"\(Self.secret)\"}".utf8))
        let search = CredentialSearch(planted: [PlantedSecret(what: "the password", value: Self.secret)])
        #expect(SimulatedSite.findings(raw: wire, search: search).contains { $0.hasPrefix("an HTTP/2 body") })
    }

    @Test func brokenFramesEndTheReadingWithoutACrash() throws {
        let wire = try Self.request(body: [])
        // Cut anywhere, and with a padding longer than its frame: no crash, what came before kept.
        for cut in stride(from: HTTP2Frames.preface.count, to: wire.count, by: 3) { _ = HTTP2Frames.decode(Array(wire[..<cut])) }
        let badPad = HTTP2Frames.preface + Self.frame(1, flags: 0x08 | 0x04, [200, 1, 2])
        #expect(HTTP2Frames.decode(badPad)?.headers.isEmpty == true)
        let garbage = HTTP2Frames.preface + Self.frame(1, flags: 0x04, [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(HTTP2Frames.decode(garbage)?.headers.isEmpty == true)
        #expect(HTTP2Frames.decode(Array("GET / HTTP/1.1\r\n\r\n".utf8)) == nil)
    }
}
