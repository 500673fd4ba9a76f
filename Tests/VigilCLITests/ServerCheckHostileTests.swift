import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// `vigil server check` against servers that break TLS on purpose (``HostileTLSServer``, Python's
/// socket module, not Vigil's code): each gets a clear error with its code and exit 2, never a
/// verdict, a crash or a hang, and a second process gives the same answer.
@Suite("vigil server check against hostile servers", .serialized, .timeLimit(.minutes(2)))
struct ServerCheckHostileTests {
    static func run(_ url: String, _ extra: [String] = []) async throws -> CommandResult {
        try await CommandRunner.vigilDetached(["server", "check", url, "--ca-file", TestPaths.caBundle, "--timeout", "1"] + extra)
    }

    @Test(arguments: [
        ("garbage-after-hello", "ServerCheckError no-handshake"),
        ("unoffered-suite", "ServerCheckError no-handshake"),
        ("stall", "ServerCheckError no-handshake"),
        ("trickle", "ServerCheckError no-handshake"),
        ("huge-chain", "ServerCheckError no-handshake"),
    ])
    func aBrokenHandshakeIsExitTwoWithTheSameAnswerTwice(mode: String, code: String) async throws {
        let server = try HostileTLSServer(mode)
        defer { server.stop() }
        let first = try await Self.run(server.url)
        let second = try await Self.run(server.url)
        #expect(first.status == 2 && first.errorCode == code, "\(mode): \(first.status) \(first.standardError)")
        #expect(first.standardOutput.isEmpty, "\(mode): no verdict: \(first.standardOutput)")
        // The message names the port the server got; both runs met the same server.
        #expect(first.standardError == second.standardError && first.status == second.status, "\(mode): \(first.standardError) / \(second.standardError)")
        #expect(!first.standardError.contains("\u{1B}"), "\(mode): nothing the server sent reaches the terminal raw")
    }

    /// A server that breaks only Vigil's own ClientHello (the one offering 3DES): the rest is
    /// judged, the break is said, the same in a second process.
    @Test(arguments: [
        ("legacy-garbage", ["protocol-violation"], ["sweet32", "tls-compression"]),
        ("legacy-compression", ["protocol-violation"], ["sweet32", "tls-compression"]),
        ("legacy-fragmented", ["sweet32", "protocol-ssl3"], ["protocol-violation"]),
    ])
    func aBrokenAnswerToVigilsOwnHelloIsSaid(mode: String, present: [String], absent: [String]) async throws {
        let server = try HostileTLSServer(mode)
        defer { server.stop() }
        var answers: [Set<String>] = []
        for _ in 0..<2 {
            let result = try await Self.run(server.url, ["--json"])
            let report = try #require(
                try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(mode): \(result.standardError)")
            answers.append(Set((report["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }))
        }
        #expect(answers[0].isSuperset(of: present) && answers[0].isDisjoint(with: absent), "\(mode): \(answers[0].sorted())")
        #expect(answers[0] == answers[1], "\(mode): the same answer twice")
    }

    /// A server that answers, slowly, past the whole check's deadline: stopped there, exit 2.
    @Test func theWholeCheckHasADeadline() async throws {
        let server = try HostileTLSServer("trickle")
        defer { server.stop() }
        let stopped = try await Self.run(server.url, ["--timeout", "30", "--deadline", "1"])
        #expect(stopped.status == 2 && stopped.errorCode == "ServerCheckError deadline", "\(stopped.standardError)")
        #expect(stopped.standardError.contains("took longer than 1 s") && stopped.standardOutput.isEmpty, "\(stopped.standardError)")
    }

    /// status.php redirecting to itself forever: not followed, said, the rest judged.
    @Test func aRedirectLoopOnStatusIsNotFollowed() async throws {
        try await withRunningSimulator("redirect-loop") { running in
            let result = try await CommandRunner.vigilDetached(["server", "check", running.url(path: ""), "--ca-file", TestPaths.caBundle, "--json"])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardError)")
            let codes = Set((report["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String })
            #expect(codes.contains("status-redirected"), "\(codes.sorted())")
            let requests = running.simulator.journal.entries.filter { $0.path.contains("status.php") || $0.path.hasPrefix("/loop") }
            #expect(requests.count <= 2, "one request, no loop followed: \(requests.map(\.path))")
        }
    }

    /// Ctrl-C in the middle of a check: it stops at once, says so and dies of the signal (a
    /// shell's 130), with no verdict.
    @Test func ctrlCStopsTheCheck() async throws {
        let server = try HostileTLSServer("stall")
        defer { server.stop() }
        let directory = try TestPaths.temporaryDirectory()
        let output = directory.appendingPathComponent("out.txt").path
        let errors = directory.appendingPathComponent("err.txt").path
        let process = try CommandRunner.startVigil(
            ["server", "check", server.url, "--ca-file", TestPaths.caBundle, "--timeout", "60"], output: output, errors: errors)
        // Until the stalled handshake is under way (the server holds the connection).
        try await Task.sleep(for: .milliseconds(500))
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGINT, "dies of the signal: $? is 130")
        let said = try String(contentsOfFile: errors, encoding: .utf8)
        #expect(said.contains("vigil: interrupted (SIGINT)"), "\(said)")
        #expect(try String(contentsOfFile: output, encoding: .utf8).isEmpty, "no verdict")
    }
}
