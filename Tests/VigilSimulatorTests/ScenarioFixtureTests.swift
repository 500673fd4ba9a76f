import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

@Suite("Scenario fixtures")
struct ScenarioFixtureTests {
    static let required = [
        "valid", "self-signed", "untrusted-root", "expired", "not-yet-valid", "wrong-host", "incomplete-chain", "weak-rsa-1024",
        "sha1-intermediate", "renewed-same-key", "rekeyed", "mitm-forged", "mitm-trusted-ca", "legacy-tls", "only-404",
        "five-seconds-of-404", "simple-apm", "recovering-apm", "reject-downloads-500", "auth-race-condition", "maintenance",
        "redirect-upgrade", "redirect-same-host", "redirect-cross-host-301", "redirect-cross-host-302", "redirect-cross-host-307",
        "redirect-cross-host-308", "redirect-chain-30", "redirect-loop", "redirect-downgrade", "apm-login-page",
    ]

    @Test func everyScenarioTheIssueNamesIsAFixture() throws {
        let library = try ScenarioLibrary(directory: RunningSimulator.fixtures)
        #expect(Set(library.scenarios.map(\.name)).isSuperset(of: Self.required))
        for scenario in library.scenarios {
            #expect(!scenario.summary.isEmpty)
            #expect(!scenario.reference.represents.isEmpty)
            for certificate in (scenario.certificates ?? [:]).values {
                #expect(FileManager.default.fileExists(atPath: RunningSimulator.certificates + "/\(certificate)-chain.pem"), "\(scenario.name): \(certificate)")
            }
        }
    }

    @Test(arguments: [
        (#"{"summary": "x", "outcome": "login", "reference": {"represents": "x"}, "behaviour": {"kind": "normal"}}"#, "field name is missing"),
        (
            #"{"name": "x", "summary": "x", "outcome": "log-in", "reference": {"represents": "x"}, "behaviour": {"kind": "normal"}}"#,
            "allowed: refuse, ask-certificate"
        ),
        (
            #"{"name": "x", "summary": "x", "outcome": "login", "reference": {"represents": "x"}, "behaviour": {"kind": "teleport"}}"#,
            "allowed: normal, not-found"
        ),
        (
            #"{"name": "x", "summary": 3, "outcome": "login", "reference": {"represents": "x"}, "behaviour": {"kind": "normal"}}"#,
            "field summary should be a string"
        ),
        (
            #"{"name": "x", "summary": "x", "outcome": "login", "reference": {"represents": "x"}, "behaviour": {"kind": "redirect", "status": 200, "target": "/x"}}"#,
            "field behaviour.status must be 301"
        ),
        (
            #"{"name": "x", "summary": "x", "outcome": "login", "reference": {"represents": "x"}, "behaviour": {"kind": "normal"}, "certificates": {"10.0.0.1": "valid-127.0.0.1"}}"#,
            "not a loopback address"
        ),
        (
            #"{"name": "x", "summary": "x", "outcome": "login", "reference": {"represents": "x"}, "behaviour": {"kind": "normal"}, "also": [{"kind": "apm"}, {"kind": "redirect-chain"}]}"#,
            "field also[1].hops must be from 1 to 100"
        ),
        (#"{"name": "Bad Name", "summary": "x", "outcome": "login", "reference": {"represents": "x"}, "behaviour": {"kind": "normal"}}"#, "field name must be"),
        ("{ not json", "broken.json"),
    ])
    func malformedFixturesNameFileFieldAndReason(text: String, expected: String) throws {
        let directory = try TestPaths.temporaryDirectory()
        let path = directory.appendingPathComponent("broken.json").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try ScenarioLibrary(directory: directory.path)
            Issue.record("a malformed fixture must be refused")
        } catch let error as SimulatorError {
            #expect(error.code == .malformedFixture)
            #expect(error.reason.hasPrefix("broken.json: "))
            #expect(error.reason.contains(expected), "\(error.reason)")
        }
    }

    @Test(arguments: ["0.0.0.0", "10.0.0.1", "192.168.1.1", "::", "example.com"])
    func onlyLoopbackCanBeBound(address: String) throws {
        let scenario = try ScenarioLibrary(directory: RunningSimulator.fixtures).scenario(named: "valid")
        var configuration = HostSimulator.Configuration(scenario: scenario, certificatesDirectory: RunningSimulator.certificates)
        configuration.addresses = [address]
        #expect(throws: SimulatorError(.refusedAddress, "")) { try HostSimulator(configuration: configuration, journal: try Journal()) }
    }

    @Test func loopbackAddresses() {
        #expect(SimulatorAddress.isLoopback("127.0.0.1"))
        #expect(SimulatorAddress.isLoopback("127.255.0.9"))
        #expect(SimulatorAddress.isLoopback("::1"))
        #expect(!SimulatorAddress.isLoopback("128.0.0.1"))
    }
}

@Suite("docs/scenarios.md")
struct ScenarioDocumentationTests {
    @Test func committedDocsMatchTheFixtures() throws {
        let committed = try String(contentsOfFile: TestPaths.root.appendingPathComponent("docs/scenarios.md").path, encoding: .utf8)
        let library = try ScenarioLibrary(directory: RunningSimulator.fixtures)
        #expect(
            committed == ScenarioDocumentation.markdown(library), "docs/scenarios.md is stale: run `vigil simulator scenarios --markdown > docs/scenarios.md`")
    }
}

@Suite("Journal")
struct JournalTests {
    @Test func linesAreJSONWithPresenceFlagsOnlyAndMemoryIsCapped() throws {
        let path = try TestPaths.temporaryDirectory().appendingPathComponent("j.jsonl").path
        let journal = try Journal(path: path, memoryLimit: 10)
        for index in 0..<25 {
            journal.record(
                JournalEntry(
                    time: "2026-01-01T00:00:00Z", host: "127.0.0.1", method: "GET", path: "/a\"\(index)", status: 200,
                    authorization: index % 2 == 0, cookie: false, body: false, mitm: index == 0 ? true : nil))
        }
        #expect(journal.entries.count <= 10)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 25)
        let decoded = try lines.map { try JSONDecoder().decode(JournalEntry.self, from: Data($0.utf8)) }
        #expect(decoded.first?.mitm == true && decoded.first?.path == "/a\"0")
        #expect(decoded[1].mitm == nil)
        let keys = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any]).keys.sorted()
        #expect(keys == ["authorization", "body", "cookie", "host", "method", "path", "status", "time"])
    }
}

/// Hostile requests against every scenario's responder, in-process: odd targets, methods, headers.
@Suite("Hostile requests")
struct HostileRequestTests {
    static let targets = [
        "/", "", "/hop/", "/hop/x/status.php", "/hop/999999999999999999999/a", "/loop/a", "/apm/login?return=%zz", "/apm/login?return=https://evil.example",
        "/remote.php/dav/files/", "/remote.php/dav/files/bob/../alice", "/status.php?" + String(repeating: "a=1&", count: 500),
        "/index.php/apps/oauth2/authorize?response_type=code&client_id=vigil-test-client&redirect_uri=%%", "/.well-known/webfinger",
        "/index.php/apps/oauth2/api/v1/token", "/moved/moved/status.php", String(repeating: "/x", count: 2000),
    ]

    @Test func everyScenarioAnswersEveryHostileRequest() throws {
        let library = try ScenarioLibrary(directory: RunningSimulator.fixtures)
        for scenario in library.scenarios {
            let responder = CloudResponder(scenario: scenario, clock: ManualSimulatorClock())
            for target in Self.targets {
                for method in ["GET", "PROPFIND", "POST", "DELETE", "BREW"] {
                    var request = SimulatedRequest(
                        method: method, target: target, headers: ["authorization": "Basic %%%", "cookie": "APMSESSION=;;"],
                        hasBody: true, scheme: "https", host: 1)
                    request.body = Array("grant_type=authorization_code&code=&code_verifier=\u{0}".utf8)
                    let response = responder.respond(to: request)
                    #expect((200...599).contains(response.status), "\(scenario.name) \(method) \(target.prefix(40)): \(response.status)")
                }
            }
        }
    }

    /// The APM must not become an open redirect.
    @Test func apmReturnStaysOnTheHost() throws {
        let scenario = try ScenarioLibrary(directory: RunningSimulator.fixtures).scenario(named: "simple-apm")
        let responder = CloudResponder(scenario: scenario)
        for hostile in ["https://evil.example/", "//evil.example/", "%2F%2Fevil.example", "/%5Cevil.example"] {
            let response = responder.respond(
                to: SimulatedRequest(method: "GET", target: "/apm/login?return=\(hostile)", headers: [:], hasBody: false, scheme: "https", host: 1))
            #expect(response.headers.first { $0.0 == "Location" }?.1 == "/", "\(hostile)")
        }
        let fine = responder.respond(
            to: SimulatedRequest(method: "GET", target: "/apm/login?return=%2Fstatus.php", headers: [:], hasBody: false, scheme: "https", host: 1))
        #expect(fine.headers.first { $0.0 == "Location" }?.1 == "/status.php")
    }

    /// The seeds' list of active simulations: scenarios that differ in behaviour play at once, by
    /// name or by the seeds' simulation name; one that changes more says which field stops it.
    @Test func activeSimulationsCombineOnlyByBehaviour() throws {
        let library = try ScenarioLibrary(directory: RunningSimulator.fixtures)
        let both = try Scenario.combining([library.scenario(namedOrSeeds: "five-seconds-of-404"), library.scenario(namedOrSeeds: "reject-downloads-500")])
        #expect(both.name == "five-seconds-of-404+reject-downloads-500" && both.behaviours.map(\.kind) == [.notFoundWindow, .rejectDownloads])
        let clock = ManualSimulatorClock()
        let responder = CloudResponder(scenario: both, clock: clock)
        func get(_ path: String, method: String = "GET") -> Int {
            responder.respond(to: SimulatedRequest(method: method, target: path, headers: [:], hasBody: false, scheme: "https", host: 1)).status
        }
        #expect(get("/status.php") == 404, "the storm first")
        clock.advance(seconds: 6)
        #expect(get("/status.php") == 200)
        #expect(get("/remote.php/dav/files/alice/a.txt") == 500, "and downloads still fail")

        let onValid = try Scenario.combining([library.scenario(named: "valid"), library.scenario(named: "simple-apm")])
        #expect(onValid.behaviours.map(\.kind) == [.apm])
        for stopped in ["expired", "mitm-forged"] {
            #expect(throws: SimulatorError.self) { try Scenario.combining([library.scenario(named: "simple-apm"), library.scenario(named: stopped)]) }
        }
        do {
            _ = try Scenario.combining([library.scenario(named: "simple-apm"), library.scenario(named: "expired")])
        } catch let error as SimulatorError {
            #expect(error.reason.contains("expired") && error.reason.contains("certificates"), "\(error.reason)")
        }
    }

    /// The seeds' recovering-apm: a bogus endpoint for 30 s from the first request, then the login.
    @Test func recoveringAPMIsBogusForThirtySecondsThenLetsIn() throws {
        let scenario = try ScenarioLibrary(directory: RunningSimulator.fixtures).scenario(named: "recovering-apm")
        let clock = ManualSimulatorClock()
        let responder = CloudResponder(scenario: scenario, clock: clock)
        func location(_ target: String) -> String? {
            responder.respond(to: SimulatedRequest(method: "GET", target: target, headers: [:], hasBody: false, scheme: "https", host: 1))
                .headers.first { $0.0 == "Location" }?.1
        }
        #expect(location("/status.php")?.hasPrefix("/apm/bogus?") == true)
        let bogus = responder.respond(
            to: SimulatedRequest(method: "GET", target: "/apm/bogus?return=%2Fstatus.php", headers: [:], hasBody: false, scheme: "https", host: 1))
        #expect(bogus.status == 200 && !bogus.headers.contains { $0.0 == "Set-Cookie" })
        clock.advance(seconds: 29)
        #expect(location("/status.php")?.hasPrefix("/apm/bogus?") == true)
        clock.advance(seconds: 2)
        #expect(location("/status.php")?.hasPrefix("/apm/login?") == true)
    }
}
