import Foundation
import Testing
import VigilSimulator
import VigilSimulatorTesting
import VigilTestSupport

/// What the simulated cloud answers: WebDAV, OCS, status.php and the scenarios' HTTP behaviours,
/// in process (no socket proves anything here). The basic exchange runs over both transports,
/// which must agree, journal included; what only a socket shows is in the live suites.
@Suite("The simulated cloud's answers", .timeLimit(.minutes(3)))
struct CloudResponderTests {
    let alice = [("Authorization", "Basic " + Data("alice:alice-test-password".utf8).base64EncodedString())]
    let dav = "/remote.php/dav/files/alice/"

    @Test(arguments: SimulatorTransport.allCases)
    func aValidServerSpeaksOwnCloud(transport: SimulatorTransport) async throws {
        try await withCloud("valid", transport) { (cloud) async throws in
            let status = try await cloud.get("/status.php")
            #expect(status.text.contains(#""installed":true"#) && status.text.contains(#""maintenance":false"#))
            let anonymous = try await cloud.execute("PROPFIND", dav)
            #expect(anonymous.status == 401)
            #expect(anonymous.headers.contains { $0.name == "WWW-Authenticate" && $0.value.hasPrefix("Basic realm=\"ownCloud\"") })
            #expect(anonymous.headers.contains { $0.name == "WWW-Authenticate" && $0.value.hasPrefix("Bearer") })
            #expect(try await cloud.execute("PROPFIND", dav, headers: alice).status == 207)
            let wrong = [("Authorization", "Basic " + Data("alice:wrong".utf8).base64EncodedString())]
            #expect(try await cloud.execute("PROPFIND", dav, headers: wrong).status == 401)
            #expect(try await cloud.get("/ocs/v2.php/cloud/capabilities").text.contains("\"capabilities\""))
            #expect(try await cloud.get("/ocs/v2.php/cloud/user", headers: alice).text.contains("\"id\":\"alice\""))
            // The journal saw everything and kept no secret.
            let entries = cloud.simulator.journal.entries
            #expect(entries.count == 6)
            #expect(entries.filter(\.authorization).count == 3)
            #expect(entries.filter { $0.accepted == true }.count == 2, "alice's password accepted twice, the wrong one never")
            let encoded = String(decoding: try JSONEncoder().encode(entries), as: UTF8.self)
            #expect(!encoded.contains("alice-test-password") && !encoded.contains("YWxpY2U"))
        }
    }

    @Test func aClientCanUploadCreateMoveAndDelete() async throws {
        try await withCloud("valid", .inProcess) { (cloud) async throws in
            #expect(try await cloud.execute("MKCOL", dav + "New%20folder", headers: alice).status == 201)
            #expect(try await cloud.execute("PUT", dav + "New%20folder/a.txt", headers: alice, body: Array("x".utf8)).status == 201)
            #expect(try await cloud.execute("PUT", dav + "New%20folder/b.txt", headers: alice, body: Array("uploaded\n".utf8)).status == 201)
            let move = try await cloud.execute("MOVE", dav + "New%20folder/b.txt", headers: alice + [("Destination", cloud.url(path: dav + "b.txt"))])
            #expect(move.status == 201)
            let back = try await cloud.get(dav + "b.txt", headers: alice)
            #expect(back.status == 200 && back.text == "uploaded\n", "\(back.text)")
            let listing = try await cloud.execute("PROPFIND", dav, headers: alice + [("Depth", "1")])
            #expect(listing.text.contains("<d:href>\(dav)b.txt</d:href>") && listing.text.contains("<d:href>\(dav)New%20folder/</d:href>"), "\(listing.text)")
            #expect(try await cloud.execute("DELETE", dav + "New%20folder", headers: alice).status == 204)
            #expect(try await cloud.get(dav + "New%20folder/a.txt", headers: alice).status == 404)
            // Another user's files stay out of reach.
            #expect(try await cloud.execute("PROPFIND", "/remote.php/dav/files/bob/", headers: alice).status == 403)
        }
    }

    @Test func onlyNotFound() async throws {
        try await withCloud("only-404", .inProcess) { (cloud) async throws in
            #expect(try await cloud.get("/status.php").status == 404)
            #expect(try await cloud.execute("PROPFIND", dav, headers: alice).status == 404)
        }
    }

    @Test func fiveSecondsOfNotFoundOnTheInjectedClock() async throws {
        let clock = ManualSimulatorClock(Date())
        try await withCloud("five-seconds-of-404", .inProcess, clock: clock) { (cloud) async throws in
            #expect(try await cloud.get("/status.php").status == 404)
            clock.advance(seconds: 4.9)
            #expect(try await cloud.get("/status.php").status == 404)
            clock.advance(seconds: 0.2)
            #expect(try await cloud.get("/status.php").status == 200)
        }
    }

    @Test func rejectDownloads() async throws {
        try await withCloud("reject-downloads-500", .inProcess) { (cloud) async throws in
            #expect(try await cloud.get(dav + "report.pdf", headers: alice).status == 500)
            #expect(try await cloud.execute("PROPFIND", dav, headers: alice).status == 207)
        }
    }

    @Test func authRaceRejectsTheFirstFourThenAccepts() async throws {
        try await withCloud("auth-race-condition", .inProcess) { (cloud) async throws in
            var statuses: [Int] = []
            for _ in 0..<5 { statuses.append(try await cloud.execute("PROPFIND", dav, headers: alice).status) }
            #expect(statuses == [401, 401, 401, 401, 207])
        }
    }

    @Test func maintenance() async throws {
        try await withCloud("maintenance", .inProcess) { (cloud) async throws in
            #expect(try await cloud.get("/status.php").text.contains(#""maintenance":true"#))
            let answer = try await cloud.execute("PROPFIND", dav, headers: alice)
            #expect(answer.status == 503)
            #expect(answer.text.contains("Sabre\\DAV\\Exception\\ServiceUnavailable"))
        }
    }

    @Test func apmLoginPageAnswersPropfindWithHTML() async throws {
        try await withCloud("apm-login-page", .inProcess) { (cloud) async throws in
            let result = try await cloud.execute("PROPFIND", dav, headers: alice)
            #expect(result.status == 200)
            #expect(result.header("content-type")?.lowercased().hasPrefix("text/html") == true)
            #expect(result.text.contains("<form"))
        }
    }

    @Test func aHostTheSimulatorDoesNotServeIsAnError() async throws {
        try await withCloud("valid", .inProcess) { (cloud) async throws in
            await #expect(throws: SimulatedCloudError(.noSuchHost, "")) { try await cloud.get("/status.php", host: 9) }
            await #expect(throws: SimulatedCloudError(.noSuchHost, "")) { try await cloud.get("/status.php", host: 2, scheme: "http") }
        }
    }

    /// The live transport is a careful client: a certificate the simulator's CA did not issue for
    /// the host's address ends the connection, nothing answered.
    @Test(arguments: ["self-signed", "wrong-host", "expired"])
    func theLiveTransportVerifiesTheCertificate(scenario: String) async throws {
        try await withCloud(scenario, .live) { (cloud) async throws in
            let error = await #expect(throws: SimulatedCloudError.self) { try await cloud.get("/status.php") }
            #expect(error?.code == .connection && error?.reason.contains("the TLS handshake failed") == true, "\(String(describing: error))")
            #expect(cloud.simulator.journal.entries.isEmpty, "no request reached the server")
        }
    }
}
