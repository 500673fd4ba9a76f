import Foundation
import Testing

@testable import VigilSimulator

/// The name server of the suite's network namespace, on the bytes a client sends: a scenario's
/// names answered with its hosts, every other name with an address of its own (journalled), and
/// hostile queries answered safely or dropped.
@Suite("The simulator's name server")
struct NameServerTests {
    /// A query as glibc sends it: id, recursion desired, one question.
    static func query(_ name: String, type: UInt16, id: UInt16 = 0x1234) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0]
        for label in name.split(separator: ".") { bytes += [UInt8(label.utf8.count)] + Array(label.utf8) }
        return bytes + [0, UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
    }

    /// The answer's records' data (A: 4 bytes, AAAA: 16) and its response code.
    static func records(_ answer: [UInt8]) -> (code: UInt8, data: [[UInt8]]) {
        let count = Int(answer[6]) << 8 | Int(answer[7])
        var index = 12
        while answer[index] != 0 { index += Int(answer[index]) + 1 }
        index += 5
        var data: [[UInt8]] = []
        for _ in 0..<count {
            let length = Int(answer[index + 10]) << 8 | Int(answer[index + 11])
            data.append(Array(answer[index + 12..<index + 12 + length]))
            index += 12 + length
        }
        return (answer[3] & 0x0F, data)
    }

    let others = OtherHostNames()
    var server: NameServer {
        NameServer(address: "127.53.0.1", names: ["cloud.example.test": [[127, 0, 0, 1]], "v6.example.test": [NameServer.bytes(of: "::1")!]], others: others)
    }

    @Test func aScenarioNameIsAnsweredWithItsHostAnyCase() throws {
        let answer = try #require(server.answer(Self.query("Cloud.Example.TEST", type: DNSQuery.typeA)))
        #expect(Array(answer[0..<2]) == [0x12, 0x34])
        #expect(answer[2] & 0x80 != 0)
        #expect(Self.records(answer).code == 0)
        #expect(Self.records(answer).data == [[127, 0, 0, 1]])
        // No AAAA record for an IPv4 host, and no error: the client uses the A record.
        let v6 = try #require(server.answer(Self.query("cloud.example.test", type: DNSQuery.typeAAAA)))
        #expect(Self.records(v6).data.isEmpty && Self.records(v6).code == 0)
        let both = try #require(server.answer(Self.query("v6.example.test", type: DNSQuery.typeAAAA)))
        #expect(Self.records(both).data == [NameServer.bytes(of: "::1")!])
    }

    @Test func everyOtherNameGetsAnAddressOfItsOwnAndIsJournalled() throws {
        let server = self.server
        let first = try #require(server.answer(Self.query("telemetry.example.net", type: DNSQuery.typeA)))
        let second = try #require(server.answer(Self.query("updates.example.org", type: DNSQuery.typeA)))
        let again = try #require(server.answer(Self.query("TELEMETRY.example.net", type: DNSQuery.typeA)))
        #expect(Self.records(first).data == [[127, 1, 0, 1]])
        #expect(Self.records(second).data == [[127, 1, 0, 2]])
        #expect(Self.records(again).data == Self.records(first).data)
        #expect(others.name(for: "127.1.0.2") == "updates.example.org")
        #expect(others.asked.names == ["telemetry.example.net", "updates.example.org"])
        #expect(server.asked == ["telemetry.example.net", "updates.example.org"])
        // Scenario names are not "other" names.
        _ = server.answer(Self.query("cloud.example.test", type: DNSQuery.typeA))
        #expect(others.asked.names.count == 2)
    }

    @Test func hostileQueriesAreDroppedOrAnsweredSafely() throws {
        // Too short, a response, a compression pointer in the name, a label running past the end.
        #expect(server.answer([0x12]) == nil)
        var response = Self.query("a.example", type: 1)
        response[2] |= 0x80
        #expect(server.answer(response) == nil)
        #expect(server.answer([0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xC0, 0x0C, 0, 1, 0, 1]) == nil)
        #expect(server.answer([0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 40, 0x61, 0x62]) == nil)
        // A name with control bytes and an escape sequence is journalled as text that shows nothing raw.
        var hostile: [UInt8] = [0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        let label: [UInt8] = [0x1B] + Array("[31mred".utf8) + [0x0A]
        hostile += [UInt8(label.count)] + label + [0, 0, 1, 0, 1]
        let answer = try #require(server.answer(hostile))
        #expect(Self.records(answer).data.count == 1)
        let name = try #require(others.asked.names.first)
        #expect(name == "\\027\\09131mred\\010")
        #expect(!name.unicodeScalars.contains { $0.value < 0x20 })
        // Class CHAOS: not implemented.
        var chaos = Self.query("version.bind", type: 16)
        chaos[chaos.count - 1] = 3
        #expect(Self.records(try #require(server.answer(chaos))).code == 4)
    }

    /// Over a real socket: what glibc's resolver would get on loopback.
    @Test func answersOverUDP() async throws {
        let server = try await NameServer.start(address: "127.0.0.1", port: 0, names: ["cloud.example.test": ["127.0.0.7"]], others: others)
        let socket = Foundation.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(socket) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(server.port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let query = Self.query("cloud.example.test", type: DNSQuery.typeA)
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(socket, query, query.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(sent == query.count)
        var buffer = [UInt8](repeating: 0, count: 512)
        let received = recv(socket, &buffer, buffer.count, 0)
        await server.stop()
        try #require(received > 0)
        #expect(Self.records(Array(buffer[0..<received])).data == [[127, 0, 0, 7]])
    }
}
