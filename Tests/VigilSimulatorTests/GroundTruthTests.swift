import Crypto
import Foundation
import Testing
import VigilTestSupport

@testable import VigilSimulator

/// What the simulator records below the requests (connections, ClientHellos, application bytes),
/// where it finds a planted secret, and the files a client uploads: each with curl and openssl.
@Suite("The simulator's ground truth", .serialized, .timeLimit(.minutes(3)))
struct GroundTruthTests {
    @Test func aRefusedHandshakeSendsNoApplicationDataAndAnAcceptedOneIsCounted() async throws {
        try await withRunningSimulator("self-signed") { (running) async throws in
            // curl trusting only the test CA refuses the self-signed host during the handshake.
            let refused = try await running.curl(["--user", "alice:alice-test-password"], url: running.url())
            #expect(refused.exit != 0)
            // curl -k completes it and sends its request.
            let careless = try await running.curl(["-k", "--user", "alice:alice-test-password"], url: running.url())
            #expect(careless.exit == 0)
            let connections = running.simulator.journal.connections
            #expect(connections.count == 2, "\(connections)")
            #expect(connections.first?.handshake == "failed" && connections.first?.applicationBytes == 0, "\(connections)")
            #expect(connections.last?.handshake == "completed" && (connections.last?.applicationBytes ?? 0) > 0, "\(connections)")
            #expect(connections.allSatisfy { !$0.open && $0.certificate == "self-signed" && $0.offeredVersions?.contains("1.3") == true })
            let entry = try #require(running.simulator.journal.entries.last)
            #expect(entry.connection == connections.last?.id && entry.found == ["an Authorization header"], "\(entry)")
        }
    }

    @Test func theServerNameTheClientAskedForIsRecorded() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let port = try #require(running.listeners.first { $0.scheme == "https" && $0.host == 1 }?.port)
            _ = try await running.curl(["--resolve", "cloud.example.test:\(port):127.0.0.1", "-k"], url: "https://cloud.example.test:\(port)/status.php")
            #expect(running.simulator.journal.connections.last?.serverName == "cloud.example.test")
        }
    }

    @Test func onlyACredentialTheServerKnowsIsAccepted() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            _ = try await running.curl(["-X", "PROPFIND", "--user", "alice:alice-test-password"], url: running.url(path: "/remote.php/dav/files/alice/"))
            _ = try await running.curl(["-X", "PROPFIND", "--user", "alice:wrong"], url: running.url(path: "/remote.php/dav/files/alice/"))
            _ = try await running.curl(["--cookie", "x=1"], url: running.url())
            let entries = running.simulator.journal.entries
            #expect(entries.map(\.credentialAccepted) == [true, false, false], "\(entries)")
            #expect(entries.map(\.status) == [207, 401, 200])
        }
    }

    /// In a name (a TLS server name), a secret is found split into labels by dots and in
    /// another letter case, as well as in every encoding; a name without it is clean.
    @Test func aSecretIsFoundInANameSplitOrLowerCased() {
        let search = CredentialSearch(planted: [PlantedSecret(what: "the password", value: "Alice-Test-Password")])
        for name in ["Alice-Test-Password", "alice-test-password.example", "alic.e-te.st-p.assw.ord", "ALICE-TEST-PASSWORD.example", "ALIC.E-TE.ST-P.ASSW.ORD"]
        {
            #expect(search.findInName(Array(name.utf8)) != nil, "\(name)")
        }
        #expect(search.findInName(Array("cloud.example.com".utf8)) == nil)
    }

    /// A ClientHello's ALPN names are read (a secret may hide there as in the server name).
    @Test func aClientHellosProtocolsAreRead() throws {
        func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
        let protocols = [bytes("http/1.1"), bytes("alice-test-password")]
        let list = protocols.flatMap { [UInt8($0.count)] + $0 }
        let alpn: [UInt8] = [0x00, 0x10] + Self.u16(list.count + 2) + Self.u16(list.count) + list
        let body: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 7, count: 32) + [0x00] + [0x00, 0x02, 0x13, 0x01] + [0x01, 0x00] + Self.u16(alpn.count) + alpn
        let handshake: [UInt8] = [0x01, 0x00] + Self.u16(body.count) + body
        let record: [UInt8] = [0x16, 0x03, 0x01] + Self.u16(handshake.count) + handshake
        let hello = try #require(ClientHello(record: record))
        #expect(hello.protocols == ["http/1.1", "alice-test-password"] && hello.serverName == nil)
    }

    static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    @Test func aSecretIsFoundInEveryCommonEncoding() {
        let search = CredentialSearch(planted: [PlantedSecret(what: "the password", value: "alice-test-password")])
        let password = Array("alice-test-password".utf8)
        let cases: [(String, [UInt8])] = [
            ("as sent", Array("x alice-test-password y".utf8)),
            ("base64", Array("X-Auth: \(Data(password).base64EncodedString())".utf8)),
            ("base64", Array(Data(Array("ab".utf8) + password).base64EncodedString().utf8)),
            ("base64", Array(Data(password).base64EncodedString().replacingOccurrences(of: "=", with: "").utf8)),
            ("hex", Array(password.map { String(format: "%02X", $0) }.joined().utf8)),
            ("percent-encoded", Array(password.map { String(format: "%%%02x", $0) }.joined().utf8)),
            ("JSON-escaped", Array(("{\"p\":\"" + "alice-test-password".unicodeScalars.map { String(format: "\\u%04x", $0.value) }.joined() + "\"}").utf8)),
            ("percent-encoded, then base64", Array(("t=" + Data(password).base64EncodedString().replacingOccurrences(of: "=", with: "%3D")).utf8)),
            ("UTF-16", Array("alice-test-password".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })),
            ("hex of its SHA-256", Array(SHA256.hash(data: password).map { String(format: "%02x", $0) }.joined().utf8)),
            (
                "line-wrapped, then base64",
                Array(Data(Array(String(repeating: "x", count: 60).utf8) + password).base64EncodedString(options: .lineLength76Characters).utf8)
            ),
        ]
        for (how, bytes) in cases {
            #expect(search.find(in: bytes) != nil, "\(how): \(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(search.find(in: Array("nothing to see here, alice-test-passwor".utf8)) == nil)
        #expect(search.find(in: Array(Data(Array("alice-test-passwore".utf8).reversed()).base64EncodedString().utf8)) == nil)
    }

    @Test func aClientHelloIsParsed() {
        // A TLS 1.2 record holding a ClientHello with SNI example.test and supported_versions 1.3, 1.2.
        let sni: [UInt8] = [0x00, 0x00, 0x00, 0x11, 0x00, 0x0F, 0x00, 0x00, 0x0C] + Array("example.test".utf8)
        let versions: [UInt8] = [0x00, 0x2B, 0x00, 0x05, 0x04, 0x03, 0x04, 0x03, 0x03]
        let extensions = sni + versions
        var body: [UInt8] = [0x03, 0x03] + [UInt8](repeating: 7, count: 32) + [0x00] + [0x00, 0x02, 0x13, 0x01] + [0x01, 0x00]
        body += [UInt8(extensions.count >> 8), UInt8(extensions.count & 0xFF)] + extensions
        let handshake: [UInt8] = [0x01, 0x00, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
        let record: [UInt8] = [0x16, 0x03, 0x01, UInt8(handshake.count >> 8), UInt8(handshake.count & 0xFF)] + handshake
        let hello = ClientHello(record: record)
        #expect(hello?.serverName == "example.test" && hello?.versions == ["1.3", "1.2"], "\(String(describing: hello))")
        #expect(ClientHello(record: Array(record.prefix(40))) == nil, "a ClientHello cut short is not whole yet")
        #expect(ClientHello(record: Array("GET / HTTP/1.1\r\n\r\n".utf8)) == nil)
    }
}
