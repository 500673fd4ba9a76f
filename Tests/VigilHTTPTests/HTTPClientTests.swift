import Foundation
import Testing
import VigilCertificates
import VigilSimulator
import VigilTestSupport

@testable import VigilHTTP

/// Vigil's HTTP client against the host simulator over real TLS; the simulator's journal is the
/// witness of what reached each host.
@Suite("HTTP client against the simulator", .serialized, .timeLimit(.minutes(3)))
struct HTTPClientTests {
    static let basic = [(name: "Authorization", value: "Basic " + Data("alice:alice-test-password".utf8).base64EncodedString())]

    func client(approving approvals: [Endpoint: Set<String>] = [:], _ configure: (inout HTTPClient.Configuration) -> Void = { _ in }) throws -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .seconds(10)
        configure(&configuration)
        let evaluator = try TrustEvaluator(configuration: .caFiles([TestPaths.caBundle]))
        return HTTPClient(policy: EvaluatorTrustPolicy(evaluator: evaluator, approvals: approvals), configuration: configuration)
    }

    /// A server that never answers, a client that would wait a minute: cancelling the task stops
    /// libcurl's transfer (its progress callback), and says so, instead of waiting for the timeout.
    @Test func aCancelledTaskStopsTheTransfer() async throws {
        try await withRunningSimulator("never-answers") { (running) async throws in
            let client = try client { $0.timeout = .seconds(60) }
            let url = running.url()
            let request = Task { try await client.send(HTTPRequest(url: url)) }
            // Cancel once the request is at the server (the journal saw it), whatever the machine's speed.
            while running.simulator.journal.entries.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
            request.cancel()
            do {
                _ = try await request.value
                Issue.record("a silent server answered")
            } catch let error as HTTPError {
                #expect(error.code == .cancelled, "\(error)")
            }
        }
    }

    /// Every request says who sends it and carries its own X-Request-ID, which the server sees.
    @Test func eachRequestCarriesTheUserAgentAndItsOwnRequestID() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let client = try client { $0.userAgent = "Vigil/9.9 (Test)" }
            _ = try await client.send(HTTPRequest(url: running.url()))
            _ = try await client.send(HTTPRequest(url: running.url()))
            let entries = running.simulator.journal.entries
            #expect(entries.count == 2 && entries.allSatisfy { $0.userAgent == "Vigil/9.9 (Test)" })
            let ids = entries.compactMap(\.requestID)
            #expect(ids.count == 2 && Set(ids).count == 2 && ids.allSatisfy { UUID(uuidString: $0) != nil })
        }
    }

    /// A client keeping its connection sends its second request on the first one's connection
    /// (one handshake, the simulator's journal is the witness); a client that does not opens a
    /// connection per request.
    @Test func aKeepingClientSendsItsRequestsOnOneConnection() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let keeping = try client().keepingConnections()
            let first = try await keeping.send(HTTPRequest(url: running.url()))
            let second = try await keeping.send(HTTPRequest(url: running.url(path: "/status.php")))
            #expect(first.status == 200 && second.status == 200)
            #expect(!first.reusedConnection && second.reusedConnection)
            #expect(second.tls?.allowsRequest == true, "the kept connection was judged again")
            let entries = running.simulator.journal.entries
            #expect(entries.count == 2 && entries[0].connection != nil && entries[0].connection == entries[1].connection, "\(entries)")

            // A change never goes on a kept connection (libcurl would send it again on a new one
            // if the kept one had died); the kept one stays for the next request that changes nothing.
            let put = try await keeping.send(HTTPRequest(method: "PUT", url: running.url(path: "/remote.php/dav/files/alice/a.txt"), body: Array("a".utf8)))
            #expect(!put.reusedConnection)
            #expect(try await keeping.send(HTTPRequest(url: running.url())).reusedConnection)
            // A copy that offers other TLS versions does not take a connection made with the first's.
            var stricter = keeping
            stricter.configuration.minimumTLSVersion = .tls13
            #expect(!(try await stricter.send(HTTPRequest(url: running.url())).reusedConnection))

            let plain = try client()
            _ = try await plain.send(HTTPRequest(url: running.url()))
            let again = try await plain.send(HTTPRequest(url: running.url()))
            #expect(!again.reusedConnection)
            let last = running.simulator.journal.entries.suffix(2).compactMap(\.connection)
            #expect(last.count == 2 && last[0] != last[1], "one connection per request by default")
        }
    }

    /// A copy of a keeping client with a policy that refuses the server does not ride on the
    /// connection the first policy accepted: the kept connection is judged again, refused and
    /// closed; nothing is sent. The accepting client then gets a new connection, judged anew.
    @Test func aKeptConnectionIsJudgedAgainByTheCurrentPolicy() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let keeping = try client().keepingConnections()
            _ = try await keeping.send(HTTPRequest(url: running.url(), headers: Self.basic))
            var refusing = keeping
            refusing.policy = EvaluatorTrustPolicy(evaluator: try TrustEvaluator(configuration: .caFiles([TestPaths.testcert("attacker-ca.pem")])))
            do {
                let answer = try await refusing.send(HTTPRequest(url: running.url(), headers: Self.basic))
                Issue.record("a refused server answered \(answer.status) on the kept connection")
            } catch let error as HTTPError {
                #expect(error.code == .untrustedCertificate, "\(error)")
            }
            #expect(running.simulator.journal.entries.count == 1, "nothing was sent under the refusing policy")
            let after = try await keeping.send(HTTPRequest(url: running.url()))
            #expect(after.status == 200 && !after.reusedConnection, "the refused connection was closed, not kept")
            let connections = running.simulator.journal.entries.compactMap(\.connection)
            #expect(connections.count == 2 && connections[0] != connections[1])
        }
    }

    /// An access-policy manager: the request is sent to its login and back for a session
    /// cookie, then again with it; the login hop carries the cookie jar's cookies only, never the
    /// request's credentials; a client without a jar gets the redirect as it is.
    @Test func anAPMLoginRoundTripIsFollowedWithACookieJar() async throws {
        try await withRunningSimulator("simple-apm") { (running) async throws in
            let url = running.url(path: "/remote.php/dav/files/alice/")
            let request = HTTPRequest(method: "PROPFIND", url: url, headers: Self.basic + [(name: "Depth", value: "0")])
            let without = try await client().send(request)
            #expect(without.redirect != nil, "no jar: the redirect comes back unfollowed")
            let jar = CookieJar()
            let answer = try await client { $0.cookies = jar }.send(request)
            #expect(answer.status == 207, "\(answer.status)")
            #expect(jar.count == 1)
            let login = running.simulator.journal.entries.filter { $0.path.hasPrefix("/apm/login") }
            #expect(!login.isEmpty && login.allSatisfy { !$0.authorization }, "the login hop never carries the request's credentials")
            // A change (PUT) is never sent twice, even behind an APM: its redirect comes back as it is.
            let fresh = CookieJar()
            let put = try await client { $0.cookies = fresh }.send(
                HTTPRequest(method: "PUT", url: running.url(path: "/remote.php/dav/files/alice/a.txt"), body: Array("a".utf8)))
            #expect(put.redirect != nil && fresh.count == 0)
            #expect(running.simulator.journal.entries.filter { $0.method == "PUT" }.count == 1)
            // A one-time grant (a refresh token's POST) is sent once, APM or not: the redirect
            // comes back as it is, and the grant reached the origin once.
            var grant = HTTPRequest(method: "POST", url: running.url(path: "/index.php/apps/oauth2/api/v1/token"), body: Array("grant=x".utf8))
            grant.sentOnce = true
            let once = try await client { $0.cookies = CookieJar() }.send(grant)
            #expect(once.redirect != nil, "\(once.status)")
            #expect(running.simulator.journal.entries.filter { $0.method == "POST" && $0.path.hasSuffix("/token") }.count == 1)
        }
    }

    @Test func cookiesStayWithTheirOrigin() throws {
        let jar = CookieJar()
        let a = try #require(URLParts("https://a.example.test:443/x")), b = try #require(URLParts("https://b.example.test:443/x"))
        let plain = try #require(URLParts("http://a.example.test/x")), otherPort = try #require(URLParts("https://a.example.test:8443/x"))
        #expect(jar.store([(name: "Set-Cookie", value: "S=1; Path=/; Secure; HttpOnly")], from: a, path: "/x") == 1)
        #expect(jar.header(for: a, path: "/y") == "S=1")
        #expect(jar.header(for: b, path: "/y") == nil && jar.header(for: otherPort, path: "/y") == nil && jar.header(for: plain, path: "/y") == nil)
        #expect(jar.store([(name: "Set-Cookie", value: "T=2")], from: plain, path: "/x") == 0, "plain http sets nothing")
        jar.store([(name: "Set-Cookie", value: "S=gone; Path=/; Max-Age=0")], from: a, path: "/x")
        #expect(jar.header(for: a, path: "/y") == nil, "Max-Age=0 removes")
        // A value that could split or corrupt the header is dropped; a past Expires removes.
        #expect(jar.store([(name: "Set-Cookie", value: "X=a\rb; Path=/")], from: a, path: "/x") == 0)
        #expect(jar.store([(name: "Set-Cookie", value: "Y=1; Path=/")], from: a, path: "/x") == 1)
        jar.store([(name: "Set-Cookie", value: "Y=1; Path=/; Expires=Wed, 21 Oct 2015 07:28:00 GMT")], from: a, path: "/x")
        #expect(jar.header(for: a, path: "/y") == nil, "a past Expires removes")
        // The default path is the request path up to its last '/'.
        jar.store([(name: "Set-Cookie", value: "Z=1")], from: a, path: "/a/b/")
        #expect(jar.header(for: a, path: "/a/b/c") == "Z=1" && jar.header(for: a, path: "/a/c") == nil)
        // One origin cannot crowd out another: 20 cookies each at most, the oldest going first.
        for index in 0..<30 { jar.store([(name: "Set-Cookie", value: "N\(index)=v; Path=/")], from: b, path: "/") }
        #expect(jar.header(for: b, path: "/")?.contains("N29=v") == true && jar.header(for: b, path: "/")?.contains("N0=v") == false)
        #expect(jar.header(for: a, path: "/a/b/c") == "Z=1")
    }

    @Test func aTrustedServerAnswers() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let response = try await client().send(HTTPRequest(url: running.url()))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self).contains("\"installed\":true"))
            #expect(response.header("content-type")?.hasPrefix("application/json") == true)
            guard case .trusted = response.tls else {
                Issue.record("decision: \(String(describing: response.tls))")
                return
            }
            let dav = try await client().send(HTTPRequest(method: "PROPFIND", url: running.url(path: "/remote.php/dav/files/alice/"), headers: Self.basic))
            #expect(dav.status == 207 && String(decoding: dav.body, as: UTF8.self).contains("multistatus"))
            let token = try await client().send(
                HTTPRequest(
                    method: "POST", url: running.url(path: "/index.php/apps/oauth2/api/v1/token"),
                    headers: [(name: "Content-Type", value: "application/x-www-form-urlencoded")],
                    body: Array("grant_type=password&username=alice&password=x".utf8)))
            #expect(token.status == 400 || token.status == 401)
            #expect(running.simulator.journal.entries.map(\.body) == [false, false, true], "the form body was sent")
        }
    }

    /// The security property: a refused chain aborts the handshake, so the credential never
    /// reaches the server, not even a request line.
    @Test(arguments: ["self-signed", "mitm-forged", "expired", "wrong-host", "untrusted-root", "incomplete-chain", "weak-rsa-1024"])
    func anUntrustedServerReceivesNothing(scenario: String) async throws {
        try await withRunningSimulator(scenario) { (running) async throws in
            let request = HTTPRequest(method: "PROPFIND", url: running.url(path: "/remote.php/dav/files/alice/"), headers: Self.basic)
            do {
                _ = try await client().send(request)
                Issue.record("\(scenario): the request was sent")
            } catch let error as HTTPError {
                if scenario == "weak-rsa-1024", error.code == .handshakeFailed {
                    // OpenSSL's own security level may end the handshake first; still nothing sent.
                } else {
                    #expect(error.code == .untrustedCertificate, "\(scenario): \(error)")
                    #expect(error.evaluation?.verdict.isTrusted == false)
                    #expect(!(error.evaluation?.verdict.reasons.isEmpty ?? true))
                }
            }
            #expect(running.simulator.journal.entries.isEmpty, "\(scenario): the server saw \(running.simulator.journal.entries)")
        }
    }

    @Test func anApprovedLeafIsAcceptedButNotForAnotherHostName() async throws {
        let leaf = try #require(try Certificate.load(path: TestPaths.testcert("self-signed.pem")).first)
        try await withRunningSimulator("self-signed") { (running) async throws in
            let response = try await client(approving: [try Endpoint(url: running.url()): [leaf.sha256Fingerprint]]).send(HTTPRequest(url: running.url()))
            #expect(response.status == 200)
            guard case .approved = response.tls else {
                Issue.record("decision: \(String(describing: response.tls))")
                return
            }

            let wrong = try #require(try Certificate.load(path: TestPaths.testcert("wrong-host.pem")).first)
            try await withRunningSimulator("wrong-host") { (other) async throws in
                await #expect(throws: HTTPError.self) {
                    _ = try await client(approving: [try Endpoint(url: other.url()): [wrong.sha256Fingerprint]]).send(HTTPRequest(url: other.url()))
                }
                #expect(other.simulator.journal.entries.isEmpty, "an approval never covers a certificate for another name")
            }
        }
    }

    @Test(arguments: [301, 302, 307, 308])
    func aRedirectIsReportedNotFollowed(status: Int) async throws {
        try await withRunningSimulator("redirect-cross-host-\(status)") { (running) async throws in
            let response = try await client().send(HTTPRequest(url: running.url(), headers: Self.basic))
            #expect(response.status == status)
            let redirect = try #require(response.redirect)
            #expect(redirect.location == running.url(host: 2))
            #expect(redirect.changesHost && !redirect.isDowngrade)
            #expect(running.simulator.journal.entries.map(\.host) == ["127.0.0.1"], "host 2 was not contacted")
        }
    }

    @Test func aRelativeLocationIsResolvedOnTheSameHost() async throws {
        try await withRunningSimulator("redirect-same-host") { (running) async throws in
            let response = try await client().send(HTTPRequest(url: running.url()))
            let redirect = try #require(response.redirect)
            #expect(redirect.location == running.url(path: "/moved/status.php"))
            #expect(!redirect.changesHost && !redirect.isDowngrade)
        }
    }

    @Test func anIPv6HostIsJudgedByItsAddress() async throws {
        let scenario = try ScenarioLibrary(directory: RunningSimulator.fixtures).scenario(named: "valid")
        var configuration = HostSimulator.Configuration(scenario: scenario, certificatesDirectory: RunningSimulator.certificates)
        configuration.addresses = ["::1"]
        let simulator = try HostSimulator(configuration: configuration, journal: try Journal())
        let (stream, continuation) = AsyncStream<[HostSimulator.Listener]>.makeStream()
        let task = Task {
            try await simulator.run {
                continuation.yield($0)
                continuation.finish()
            }
        }
        defer { task.cancel() }
        var listeners: [HostSimulator.Listener] = []
        for await started in stream { listeners = started }
        let url = try #require(listeners.first { $0.scheme == "https" }?.url)
        #expect(url.hasPrefix("https://[::1]:"))
        let response = try await client().send(HTTPRequest(url: url + "/status.php"))
        #expect(response.status == 200)
        guard case .trusted = response.tls else {
            Issue.record("decision: \(String(describing: response.tls))")
            return
        }
    }

    @Test func aDowngradeIsMarkedAndPlainHTTPIsRefused() async throws {
        try await withRunningSimulator("redirect-downgrade") { (running) async throws in
            let response = try await client().send(HTTPRequest(url: running.url()))
            let redirect = try #require(response.redirect)
            #expect(redirect.isDowngrade && redirect.location.hasPrefix("http://"))
            await #expect(throws: HTTPError.self) { _ = try await client().send(HTTPRequest(url: redirect.location, headers: Self.basic)) }
            #expect(running.simulator.journal.entries.count == 1, "the http:// hop was not taken")
            let plain = try await client { $0.allowPlainHTTP = true }.send(HTTPRequest(url: running.url(scheme: "http", path: "/status.php")))
            #expect(plain.tls == nil && plain.status != 0)
        }
    }

    /// A plain-HTTP fetch that fails (a revocation list's host down) is named http:// in its
    /// error, never https://: the message says which kind of connection failed.
    @Test func aFailedPlainFetchIsNamedHTTP() async throws {
        // Port 9 (discard) on loopback: nothing listens there in CI.
        do {
            _ = try await client { $0.allowPlainHTTP = true }.send(HTTPRequest(url: "http://127.0.0.1:9/intermediate.crl"))
            Issue.record("a fetch from a closed port succeeded")
        } catch let error as HTTPError {
            #expect(error.code == .connectionRefused)
            #expect(error.reason.hasPrefix("http://127.0.0.1:9: "), "\(error.reason)")
        }
    }

    @Test func aBodyOverTheLimitAndAnInjectedHeaderAreRefused() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            do {
                _ = try await client { $0.maximumBodySize = 10 }.send(HTTPRequest(url: running.url()))
                Issue.record("a 177-byte body passed a 10-byte limit")
            } catch let error as HTTPError {
                #expect(error.code == .bodyTooLarge)
            }
            let injected = HTTPRequest(url: running.url(), headers: [(name: "X-Test", value: "a\r\nAuthorization: Basic Zm9vOmJhcg==")])
            await #expect(throws: HTTPError.self) { _ = try await client().send(injected) }
            #expect(running.simulator.journal.entries.count == 1)
        }
    }
}
