import Foundation
import Synchronization
import Testing
import VigilCertificates
import VigilHTTP
import VigilSecrets
import VigilSimulator
import VigilTestSupport

@testable import VigilAuth

/// OAuth2 with PKCE and a loopback redirect against the simulator's OAuth2 app. The browser is a
/// stand-in: curl follows the authorization redirect to Vigil's loopback listener, as a browser would.
@Suite("OAuth2 login, live", .serialized, .timeLimit(.minutes(3)))
struct OAuth2LoginTests {
    func client() throws -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .seconds(10)
        return HTTPClient(
            policy: EvaluatorTrustPolicy(evaluator: try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle]))), configuration: configuration)
    }

    func login(_ running: RunningSimulator, clientID: String = OIDCProvider.staticClientID) throws -> OAuth2Login {
        var login = OAuth2Login(
            client: try client(), authorizationEndpoint: running.url(path: "/index.php/apps/oauth2/authorize"),
            tokenEndpoint: running.url(path: "/index.php/apps/oauth2/api/v1/token"), clientID: clientID)
        login.timeout = .seconds(20)
        return login
    }

    /// The browser stand-in: follows redirects, trusts the test CA.
    static let browser: @Sendable (String) async -> Void = { url in
        _ = try? await CommandRunner.runDetached("/usr/bin/curl", ["-s", "-o", "/dev/null", "-L", "--max-time", "10", "--cacert", TestPaths.caBundle, url])
    }

    @Test func theCodeComesBackToTheLoopbackAndBuysAWorkingToken() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let tokens = try await login(running).login(user: "bob", openBrowser: Self.browser)
            #expect(tokens.refreshToken != nil)
            #expect("\(tokens.accessToken)" == "«secret»")
            let bearer = tokens.accessToken.withValue { "Bearer \($0)" }
            let dav = try await client().send(
                HTTPRequest(method: "PROPFIND", url: running.url(path: "/remote.php/dav/files/bob/"), headers: [(name: "Authorization", value: bearer)]))
            #expect(dav.status == 207, "the access token is bob's")
            let token = try #require(running.simulator.journal.entries.first { $0.path.hasSuffix("/api/v1/token") })
            #expect(token.body && !token.authorization, "a public client: the code and verifier in the body, no credential header")
        }
    }

    @Test func anUnknownClientIsRefusedWithoutAToken() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            // The authorization endpoint answers 400 (no redirect), so the browser never comes back.
            var unknown = try login(running, clientID: "nobody")
            unknown.timeout = .seconds(2)
            await #expect(throws: OAuth2Error.self) { _ = try await unknown.login(user: nil, openBrowser: Self.browser) }
            #expect(!running.simulator.journal.entries.contains { $0.path.hasSuffix("/api/v1/token") })
        }
    }

    @Test func aForgedRedirectWithAnotherStateIsIgnored() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let forged: @Sendable (String) async -> Void = { url in
                // An attacker's page sends the browser to the loopback with its own code and state.
                let redirect = URLComponents(string: url)?.queryItems?.first { $0.name == "redirect_uri" }?.value ?? ""
                _ = try? await CommandRunner.runDetached(
                    "/usr/bin/curl", ["-s", "-o", "/dev/null", "--max-time", "5", redirect + "?code=attacker-code&state=attacker-state"])
            }
            var short = try login(running)
            short.timeout = .seconds(3)  // the forged answer is ignored; the real one never comes
            do {
                _ = try await short.login(user: nil, openBrowser: forged)
                Issue.record("a forged response was accepted")
            } catch let error as OAuth2Error {
                #expect(error.code == .stateMismatch)
            }
            #expect(!running.simulator.journal.entries.contains { $0.path.hasSuffix("/api/v1/token") }, "the attacker's code was never redeemed")
        }
    }

    @Test func aForgedRedirectDoesNotEndTheLoginTheRealOneCompletes() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let forgedThenReal: @Sendable (String) async -> Void = { url in
                let redirect = URLComponents(string: url)?.queryItems?.first { $0.name == "redirect_uri" }?.value ?? ""
                let forged = try? await CommandRunner.runDetached(
                    "/usr/bin/curl",
                    [
                        "-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5",
                        redirect + "?error=access_denied&state=attacker-state",
                    ])
                #expect(forged?.standardOutput == "400", "the forged answer is refused, not taken")
                await Self.browser(url)
            }
            let tokens = try await login(running).login(user: nil, openBrowser: forgedThenReal)
            #expect(!tokens.accessToken.isEmpty)
            #expect(running.simulator.journal.entries.filter { $0.path.hasSuffix("/api/v1/token") }.count == 1)
        }
    }

    /// Local processes that connect to the loopback and trickle a byte a second, or say nothing,
    /// hold nothing up: the browser's callback is served beside them, within the login's deadline
    /// (4 s here; served one at a time, the trickler alone would have kept it waiting 20 s).
    @Test func aSlowLocalConnectionCannotHoldTheLoginOpen() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let holders = Holders()
            let holdThenReal: @Sendable (String) async -> Void = { url in
                let redirect = URLComponents(string: url)?.queryItems?.first { $0.name == "redirect_uri" }?.value ?? ""
                let port = URLComponents(string: redirect)?.port ?? 0
                let script = """
                    import socket, sys, time
                    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
                    if sys.argv[2] == "trickle":
                        for c in b"GET /callback?code=held&state=x HTTP/1.1":
                            s.send(bytes([c])); time.sleep(0.5)
                    else:
                        time.sleep(20)
                    """
                for mode in ["trickle", "silent"] {
                    let process = Process()
                    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
                    process.arguments = ["-c", script, "\(port)", mode]
                    try? process.run()
                    holders.list.withLock { $0.append(process) }
                }
                try? await Task.sleep(for: .milliseconds(300))
                await Self.browser(url)
            }
            var login = try login(running)
            login.timeout = .seconds(4)
            let tokens = try await login.login(user: nil, openBrowser: holdThenReal)
            #expect(!tokens.accessToken.isEmpty)
            for process in holders.list.withLock({ $0 }) where process.isRunning { process.terminate() }
        }
    }

    @Test func pkceAndTheLoopbackParser() throws {
        // The S256 challenge of a known verifier, computed independently with Python's hashlib.
        #expect(PKCE(verifier: "dBjftJeZ4CVP-mJ92K9JLnHKMh7pRT5ZdyZtRDhhoCgn").challenge == "1Npvoc7QukV2fhIwW5xqy8hJVZSzpiEm5d2GzZ0T-3U")
        let fresh = PKCE()
        #expect(fresh.verifier.count == 43 && fresh.verifier != PKCE().verifier)
        #expect(fresh.verifier.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        let (path, query) = LoopbackRedirectReceiver.split("/callback?code=a%2Fb&state=x+y&error_description=")
        #expect(path == "/callback" && query == ["code": "a/b", "state": "x y", "error_description": ""])
        #expect(OAuth2Login.constantTimeEqual("abc", "abc") && !OAuth2Login.constantTimeEqual("abc", "abd") && !OAuth2Login.constantTimeEqual("abc", "ab"))
    }
}

/// The local processes a test starts, to stop them at its end.
final class Holders: Sendable {
    let list = Mutex<[Process]>([])
}
