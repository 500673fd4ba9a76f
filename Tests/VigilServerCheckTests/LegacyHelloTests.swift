import Testing

@testable import VigilServerCheck

/// Vigil's own ClientHello and the reading of a hostile server's answer, on crafted bytes: every
/// answer is a value (accepted, refused, garbage), never a crash, whatever the lengths claim.
@Suite("LegacyHello")
struct LegacyHelloTests {
    /// A ServerHello record for `suite` in `version`, with `extensions` (raw bytes after the compression byte).
    static func serverHello(version: UInt16 = 0x0303, suite: UInt16, compression: UInt8 = 0, extensions: [UInt8] = []) -> [UInt8] {
        var body = LegacyHello.bytes(version) + [UInt8](repeating: 7, count: 32) + [0] + LegacyHello.bytes(suite) + [compression]
        if !extensions.isEmpty { body += LegacyHello.bytes(UInt16(extensions.count)) + extensions }
        let message = [2] + Array(LegacyHello.bytes(UInt32(body.count)).dropFirst()) + body
        return [0x16, 0x03, 0x03] + LegacyHello.bytes(UInt16(message.count)) + message
    }

    @Test func theHelloIsWellFormedAndOffersWhatItSays() {
        let hello = LegacyHello.clientHello(version: 0x0303, suites: [0x000A, 0x0005], serverName: "cloud.example.com")
        #expect(hello[0] == 0x16 && Int(hello[3]) << 8 | Int(hello[4]) == hello.count - 5, "the record's length is the rest")
        let message = Array(hello[5...])
        #expect(message[0] == 1 && Int(message[1]) << 16 | Int(message[2]) << 8 | Int(message[3]) == message.count - 4)
        #expect(message[4] == 0x03 && message[5] == 0x03, "TLS 1.2 asked")
        // After the version, random and empty session id: the suites, then the renegotiation SCSV.
        #expect(Array(message[39..<47]) == [0, 6, 0x00, 0x0A, 0x00, 0x05, 0x00, 0xFF], "\(Array(message[39..<47]))")
        #expect(String(decoding: hello, as: UTF8.self).contains("cloud.example.com"), "SNI for a name")
        let v3 = LegacyHello.clientHello(version: 0x0300, suites: [0x000A], serverName: "cloud.example.com")
        #expect(v3[1] == 3 && v3[2] == 0 && !String(decoding: v3, as: UTF8.self).contains("cloud"), "SSL 3.0: its own record version, no extensions")
        let address = LegacyHello.clientHello(version: 0x0303, suites: [0x000A], serverName: "127.0.0.1")
        #expect(!String(decoding: address, as: UTF8.self).contains("127.0.0.1"), "no SNI for an address")
    }

    @Test func aServerHelloIsRead() {
        #expect(LegacyHello.answer(Self.serverHello(suite: 0x000A)) == .accepted(version: 0x0303, suite: 0x000A, secureRenegotiation: false, compression: 0))
        let renegotiation = Self.serverHello(suite: 0x0005, extensions: [0xFF, 0x01, 0x00, 0x01, 0x00])
        #expect(LegacyHello.answer(renegotiation) == .accepted(version: 0x0303, suite: 0x0005, secureRenegotiation: true, compression: 0))
    }

    /// The ServerHello cut into one-byte records (legal TLS) is put back together.
    @Test func aFragmentedServerHelloIsReassembled() {
        let whole = Self.serverHello(suite: 0x000A)
        var fragmented: [UInt8] = []
        for byte in whole[5...] { fragmented += [0x16, 0x03, 0x03, 0x00, 0x01, byte] }
        #expect(LegacyHello.answer(fragmented) == LegacyHello.answer(whole))
    }

    @Test(arguments: [
        ([], LegacyHello.Answer.refused),
        ([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28], .refused),
        (Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8), .garbage),
        ([0x16, 0x03], .garbage),
        ([0x16, 0x03, 0x03, 0xFF, 0xFF, 0x02], .garbage),
        ([0x16, 0x03, 0x03, 0x00, 0x04, 0x02, 0xFF, 0xFF, 0xFF], .garbage),
        ([0x16, 0x03, 0x03, 0x00, 0x04, 0x0B, 0x00, 0x00, 0x00], .garbage),
        ([0x17, 0x03, 0x03, 0x00, 0x01, 0x00], .garbage),
    ])
    func whatIsNoServerHelloIsNeverOne(bytes: [UInt8], expected: LegacyHello.Answer) {
        #expect(LegacyHello.answer(bytes) == expected)
    }

    /// Every prefix and every one-byte change of a real ServerHello is read as a value, without a trap.
    @Test func cutAndBentAnswersAreValues() {
        let whole = Self.serverHello(suite: 0xC012, extensions: [0xFF, 0x01, 0x00, 0x01, 0x00, 0x00, 0x0B, 0xFF, 0xFF])
        for length in 0..<whole.count { _ = LegacyHello.answer(Array(whole.prefix(length))) }
        for index in whole.indices {
            for value: UInt8 in [0x00, 0x01, 0x7F, 0xFF] {
                var bent = whole
                bent[index] = value
                _ = LegacyHello.answer(bent)
            }
        }
        #expect(LegacyHello.answer(Array(whole.prefix(whole.count - 1))) == .garbage, "a message cut short is no ServerHello")
    }
}
