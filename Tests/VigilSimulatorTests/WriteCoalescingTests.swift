import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import VigilSimulator

/// Unit tests of one handler, on NIO's EmbeddedChannel.
@Suite("Write coalescing")
struct WriteCoalescingTests {
    @Test func anAnswersPartsLeaveAsOneBufferAtFlush() throws {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(WriteCoalescingHandler())
        try channel.pipeline.syncOperations.addHandler(HTTPResponseEncoder())
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "5"])
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: "hello"))), promise: nil)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil, "nothing leaves before the flush")
        let done = channel.writeAndFlush(HTTPServerResponsePart.end(nil))
        let sent = try #require(try channel.readOutbound(as: ByteBuffer.self))
        #expect(String(buffer: sent).hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(String(buffer: sent).hasSuffix("\r\n\r\nhello"))
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil, "one buffer, so one TLS record")
        try done.wait()
        _ = try channel.finish()
    }

    @Test func everyPromiseIsCompletedByTheMergedWrite() throws {
        let channel = EmbeddedChannel(handler: WriteCoalescingHandler())
        let first = channel.write(ByteBuffer(string: "a"))
        let second = channel.write(ByteBuffer(string: "b"))
        channel.flush()
        try first.wait()
        try second.wait()
        #expect(try channel.readOutbound(as: ByteBuffer.self).map { String(buffer: $0) } == "ab")
        _ = try channel.finish()
    }

    @Test func unflushedWritesFailWhenTheConnectionCloses() throws {
        let channel = EmbeddedChannel(handler: WriteCoalescingHandler())
        let pending = channel.write(ByteBuffer(string: "never flushed"))
        _ = try? channel.finish()
        #expect(throws: (any Error).self) { try pending.wait() }
    }
}
