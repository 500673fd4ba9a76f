import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// The simulator's HTTP/1.1 server on the wire, over real TLS, with raw bytes from openssl s_client.
@Suite("HTTP/1.1 on the wire", .serialized, .timeLimit(.minutes(3)))
struct HTTPProtocolTests {
    /// Sends `raw` (printf format) over TLS to host 1 and returns what came back.
    func exchange(_ raw: String, _ running: RunningSimulator) async throws -> String {
        let port = try #require(running.listeners.first { $0.host == 1 && $0.scheme == "https" }?.port)
        return try await CommandRunner.runDetached(
            "/bin/sh", ["-c", "printf '\(raw)' | timeout 10 openssl s_client -quiet -connect 127.0.0.1:\(port) 2>/dev/null"]
        ).standardOutput
    }

    @Test func garbageIsABadRequestAndTheServerGoesOn() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let answer = try await exchange("GARBAGE\\r\\n\\r\\n", running)
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
            #expect(try await running.curl([], url: running.url()).status == 200)
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let answer = try await exchange(
                "GET /nope HTTP/1.1\\r\\nHost: x\\r\\n\\r\\nGET /status.php HTTP/1.1\\r\\nHost: x\\r\\n\\r\\nGET /nope2 HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n",
                running)
            // Bodies end without a newline, so status lines are found by their text.
            let statuses = answer.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
            #expect(statuses == ["404", "200", "404"], "\(answer)")
            #expect(answer.contains("Connection: close"))
            #expect(running.simulator.journal.entries.map(\.path) == ["/nope", "/status.php", "/nope2"])
        }
    }

    @Test func http10GetsItsAnswerAndTheConnectionCloses() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let answer = try await exchange("GET /status.php HTTP/1.0\\r\\n\\r\\n", running)
            #expect(answer.hasPrefix("HTTP/1.0 200"), "\(answer)")
            #expect(answer.contains("Content-Length: 177") && answer.contains("\"installed\":true"))
        }
    }

    @Test func headAnswersHeadersOnly() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let answer = try await exchange("HEAD /status.php HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n", running)
            #expect(answer.hasPrefix("HTTP/1.1 200") && answer.contains("Content-Length: 177"), "\(answer)")
            #expect(!answer.contains("installed"))
        }
    }

    @Test func expectContinueIsAnsweredBeforeTheBody() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let answer = try await exchange(
                "POST /index.php/apps/oauth2/api/v1/token HTTP/1.1\\r\\nHost: x\\r\\nExpect: 100-continue\\r\\nContent-Length: 18\\r\\nConnection: close\\r\\n\\r\\ngrant_type=nothing",
                running)
            #expect(answer.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 400"), "\(answer.prefix(200))")
        }
    }

    @Test func expectContinueCrossesTheManInTheMiddle() async throws {
        try await withRunningSimulator("mitm-forged") { (running) async throws in
            let answer = try await exchange(
                "POST /index.php/apps/oauth2/api/v1/token HTTP/1.1\\r\\nHost: x\\r\\nExpect: 100-continue\\r\\nContent-Length: 18\\r\\nConnection: close\\r\\n\\r\\ngrant_type=nothing",
                running)
            #expect(answer.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 400"), "\(answer.prefix(200))")
            let entries = running.simulator.journal.entries
            #expect(entries.count == 2 && entries.allSatisfy { $0.status == 400 && $0.body }, "\(entries)")
        }
    }

    @Test func anOversizedBodyIsRefused() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let body = try TestPaths.temporaryDirectory().appendingPathComponent("big").path
            _ = FileManager.default.createFile(atPath: body, contents: Data(count: 16 * 1024 * 1024 + 1))
            let result = try await running.curl(["-X", "POST", "--data-binary", "@\(body)"], url: running.url(path: "/index.php/apps/oauth2/api/v1/token"))
            #expect(result.status == 413)
            #expect(try await running.curl([], url: running.url()).status == 200)
        }
    }
}
