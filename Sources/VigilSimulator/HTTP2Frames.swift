import NIOCore
import NIOHPACK

/// Bytes a client sent in clear that begin with HTTP/2's connection preface (h2c by prior
/// knowledge, to a host outside the scenario or on a TLS port): its frames read, each header block
/// HPACK-decoded by NIO's decoder (Huffman included) with one dynamic table for the connection,
/// DATA payloads joined, so that a secret is searched for in what the client meant to send. The
/// simulated hosts' own HTTP/2 connections are decoded by NIO's HTTP/2 handler before the journal
/// sees them; this reads only raw bytes kept as they came.
enum HTTP2Frames {
    /// The client's connection preface (RFC 9113 3.4).
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    /// The most body bytes joined.
    static let dataLimit = 1 << 20

    /// One frame: its type, flags, stream and payload (padding and priority still in it).
    struct Frame {
        var type: UInt8
        var flags: UInt8
        var stream: UInt32
        var payload: ArraySlice<UInt8>
    }

    /// The whole frames in `bytes` from `offset` on, in order; `offset` moves past them (a frame
    /// cut short is left for later).
    static func frames(_ bytes: [UInt8], from offset: inout Int) -> [Frame] {
        var frames: [Frame] = []
        while offset >= 0, offset + 9 <= bytes.count {
            let index = offset
            let length = Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
            guard index + 9 + length <= bytes.count else { break }
            let stream = (UInt32(bytes[index + 5]) & 0x7F) << 24 | UInt32(bytes[index + 6]) << 16 | UInt32(bytes[index + 7]) << 8 | UInt32(bytes[index + 8])
            frames.append(Frame(type: bytes[index + 3], flags: bytes[index + 4], stream: stream, payload: bytes[index + 9..<index + 9 + length]))
            offset = index + 9 + length
        }
        return frames
    }

    /// The streams whose request ended (a HEADERS or DATA frame with END_STREAM) in the whole
    /// frames from `offset` on, in order; `offset` moves past them (a frame cut short waits).
    static func endedStreams(_ bytes: [UInt8], from offset: inout Int) -> [UInt32] {
        frames(bytes, from: &offset).filter { $0.type <= 1 && $0.flags & 0x01 != 0 && $0.stream != 0 }.map(\.stream)
    }

    /// What the frames carried: header fields as decoded, in order, and the DATA bytes; nil when
    /// the bytes do not begin with the preface. A frame cut short ends the reading; a header block
    /// that does not decode ends the header decoding (later blocks depend on its table).
    static func decode(_ bytes: [UInt8]) -> (headers: [(name: String, value: String)], data: [UInt8])? {
        guard bytes.count >= preface.count, Array(bytes.prefix(preface.count)) == preface else { return nil }
        // A header list as large as anything kept is read (NIO's default stops at 16 KiB).
        var decoder = HPACKDecoder(
            allocator: ByteBufferAllocator(), maxDynamicTableSize: HPACKDecoder.maxDynamicTableSize, maxHeaderListSize: 1 << 20)
        var decoding = true
        var headers: [(name: String, value: String)] = []
        var data: [UInt8] = []
        var block: [UInt8] = []
        var offset = preface.count
        for frame in frames(bytes, from: &offset) {
            let type = frame.type, flags = frame.flags
            var payload = frame.payload
            // DATA (0) and HEADERS (1) may be padded: the pad length first, the padding last.
            if type <= 1, flags & 0x08 != 0 {
                guard let pad = payload.first, Int(pad) < payload.count else { continue }
                payload = payload.dropFirst().dropLast(Int(pad))
            }
            switch type {
            case 0:
                data += payload.prefix(max(0, dataLimit - data.count))
            case 1, 9:
                // HEADERS with a priority carries 5 bytes of it first; CONTINUATION goes on the block.
                if type == 1 {
                    block = []
                    if flags & 0x20 != 0 { payload = payload.dropFirst(5) }
                }
                block += payload
                guard flags & 0x04 != 0, decoding else { continue }
                var buffer = ByteBuffer(bytes: block)
                block = []
                do {
                    for field in try decoder.decodeHeaders(from: &buffer) { headers.append((field.name, field.value)) }
                } catch {
                    decoding = false
                }
            default:
                continue
            }
        }
        return (headers, data)
    }
}
