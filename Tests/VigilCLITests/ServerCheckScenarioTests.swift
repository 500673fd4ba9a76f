import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// `vigil server check` held to the simulator's server-setup scenarios: every scenario that says
/// what the check must find (`serverCheck` in its fixture, listed in docs/scenarios.md) is played
/// and checked, its grade and finding codes compared. The suites the local OpenSSL lacks (3DES)
/// are compared with Debian's sslscan, which finds them by a ClientHello of its own too.
@Suite("vigil server check on simulated servers", .serialized)
struct ServerCheckScenarioTests {
    static func check(_ running: RunningSimulator, _ extra: [String] = []) async throws -> (status: Int32, report: [String: Any], codes: Set<String>) {
        let result = try await CommandRunner.vigilDetached(
            ["server", "check", running.url(path: ""), "--ca-file", TestPaths.caBundle, "--json"] + extra)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardError)")
        let codes = Set((report["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String })
        return (result.status, report, codes)
    }

    static func grade(_ report: [String: Any]) -> String? { (report["rating"] as? [String: Any])?["grade"] as? String }

    /// Each scenario's expected grade and findings, found on the simulated server.
    @Test func everyServerScenarioGetsItsGradeAndFindings() async throws {
        let library = try ScenarioLibrary(directory: RunningSimulator.fixtures)
        let expecting = library.scenarios.filter { $0.serverCheck != nil }
        #expect(expecting.count >= 10, "the server-setup scenarios and their expectations are there")
        for scenario in expecting {
            let expected = try #require(scenario.serverCheck)
            try await withRunningSimulator(scenario.name) { running in
                let found = try await Self.check(running)
                #expect(Self.grade(found.report) == expected.grade, "\(scenario.name): \(found.report["rating"] ?? "none"), \(found.codes.sorted())")
                #expect(found.codes.isSuperset(of: expected.findings), "\(scenario.name): missing \(Set(expected.findings).subtracting(found.codes))")
                #expect(found.codes.isDisjoint(with: expected.absent ?? []), "\(scenario.name): \(found.codes.intersection(expected.absent ?? []))")
                #expect(!running.simulator.journal.entries.contains { $0.authorization }, "\(scenario.name): no credential was ever sent")
            }
        }
    }

    /// 3DES, which this machine's OpenSSL cannot offer, found by Vigil's own ClientHello as
    /// sslscan finds it by its own: the same suites in every version.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sslscan"), "needs sslscan: run `make test`"))
    func suitesOpenSSLLacksAreFoundAsSslscanFindsThem() async throws {
        try await withRunningSimulator("server-3des-cbc-sha1") { running in
            let found = try await Self.check(running)
            let address = String(running.url(path: "").dropFirst("https://".count))
            let scanned = try CommandRunner.run("/usr/bin/sslscan", ["--no-colour", "--xml=-", address])
            var expected: Set<String> = []
            for line in scanned.standardOutput.split(separator: "\n") where line.contains("<cipher ") {
                func attribute(_ name: String) -> String? {
                    line.range(of: " \(name)=\"").map { line[$0.upperBound...].prefix { $0 != "\"" } }.map(String.init)
                }
                if let version = attribute("sslversion"), let cipher = attribute("cipher") { expected.insert("\(version) \(cipher)") }
            }
            // sslscan names a suite OpenSSL lacks by its IANA name, the others by OpenSSL's.
            var pairs: Set<String> = []
            for version in found.report["versions"] as? [[String: Any]] ?? [] {
                let name = (version["version"] as? String ?? "").replacingOccurrences(of: "TLS ", with: "TLSv")
                for suite in version["suites"] as? [[String: Any]] ?? [] {
                    let openSSL = suite["openSSLName"] as? String ?? "", iana = suite["ianaName"] as? String ?? ""
                    pairs.insert(expected.contains("\(name) \(iana)") ? "\(name) \(iana)" : "\(name) \(openSSL)")
                }
            }
            #expect(pairs.contains("TLSv1.2 DES-CBC3-SHA") || pairs.contains("TLSv1.2 TLS_RSA_WITH_3DES_EDE_CBC_SHA"), "\(pairs.sorted())")
            #expect(!expected.isEmpty && pairs == expected, "vigil: \(pairs.sorted())\nsslscan: \(expected.sorted())")
        }
    }

    /// Through a proxy: every connection, Vigil's own hellos too, goes by CONNECT, and the report
    /// names the way; the answers are those of a direct check.
    @Test func everyConnectionGoesThroughTheProxy() async throws {
        try await withRunningSimulator("server-3des-cbc-sha1") { running in
            let direct = try await Self.check(running)
            let proxy = ConnectProxy()
            let result = try await CommandRunner.vigilDetached(
                ["server", "check", running.url(path: ""), "--ca-file", TestPaths.caBundle, "--json"],
                environment: ["https_proxy": "http://127.0.0.1:\(proxy.port)", "no_proxy": nil, "NO_PROXY": nil])
            let report = try #require(try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any], "\(result.standardError)")
            let codes = Set((report["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String })
            #expect(codes == direct.codes && codes.contains("sweet32"), "3DES found through the tunnel too: \(codes.sorted())")
            #expect((report["via"] as? String)?.contains("127.0.0.1:\(proxy.port)") == true, "\(report["via"] ?? "none")")
            let connections = report["connections"] as? Int ?? 0
            #expect(connections > 10 && proxy.tunnels.count >= connections, "\(proxy.tunnels.count) tunnels for \(connections) TLS connections")
        }
    }

    /// Mozilla's modern profile on the intermediate server: each departure a notice (the grade
    /// stays), named with the profile's guideline; an unknown profile is a usage error.
    @Test func aProfileIsHeldToAsDatedData() async throws {
        try await withRunningSimulator("server-hardened") { running in
            let modern = try await Self.check(running, ["--profile", "modern"])
            #expect(modern.codes.isSuperset(of: ["profile-versions", "profile-suites", "profile-certificate-type"]), "\(modern.codes.sorted())")
            #expect(Self.grade(modern.report) == "A+" && modern.status == 0)
            #expect(
                (modern.report["profile"] as? String)?.hasPrefix("modern (Mozilla guideline 5.7; oldest clients: Firefox 63") == true,
                "\(modern.report["profile"] ?? "none")")
            let intermediate = try await Self.check(running)
            #expect(!intermediate.codes.contains("profile-versions") && !intermediate.codes.contains("profile-suites"), "\(intermediate.codes.sorted())")
        }
        let wrong = try CommandRunner.vigil(["server", "check", "https://127.0.0.1:1", "--profile", "paranoid"])
        #expect(wrong.status == 64 && wrong.standardError.contains("--profile must be modern, intermediate or old"), "\(wrong.standardError)")
    }

    /// A newer advisories file given with --advisories is the one held to (a medium advisory is D);
    /// an old snapshot is said; a damaged file is exit 2 with its path, never a verdict.
    @Test func anAdvisoriesFileIsHeldToAndItsAgeSaid() async throws {
        let directory = try TestPaths.temporaryDirectory()
        let newer = directory.appendingPathComponent("newer.json").path
        let old = directory.appendingPathComponent("old.json").path
        let damaged = directory.appendingPathComponent("damaged.json").path
        let elsewhere = directory.appendingPathComponent("elsewhere.json").path
        func snapshot(compiled: String, advisory: String) -> String {
            #"{"format":1,"compiled":"\#(compiled)","staleAfterDays":90,"sources":["a test"],"coverage":"a test","endOfLife":[],"advisories":[\#(advisory)]}"#
        }
        let medium = #"{"id":"TEST-1","product":"ownCloud","severity":"medium","title":"a test advisory","affected":[{"from":"10.0","before":"10.16"}]}"#
        let today = Date().formatted(.iso8601.year().month().day().dateSeparator(.dash))
        try snapshot(compiled: today, advisory: medium).write(toFile: newer, atomically: true, encoding: .utf8)
        try snapshot(compiled: "2020-01-01", advisory: "").write(toFile: old, atomically: true, encoding: .utf8)
        try snapshot(compiled: "yesterday", advisory: "").write(toFile: damaged, atomically: true, encoding: .utf8)
        try snapshot(compiled: today, advisory: medium.replacingOccurrences(of: "ownCloud", with: "Nextcloud")).write(
            toFile: elsewhere, atomically: true, encoding: .utf8)
        try await withRunningSimulator("server-hardened") { running in
            let held = try await Self.check(running, ["--advisories", newer])
            #expect(Self.grade(held.report) == "D" && held.codes.contains("advisory-medium") && held.status == 1, "\(held.codes.sorted())")
            let stale = try await Self.check(running, ["--advisories", old])
            #expect(stale.codes.contains("advisories-out-of-date") && Self.grade(stale.report) == "A+", "\(stale.codes.sorted())")
            // A product the file says nothing of is said, never taken as safe.
            let uncovered = try await Self.check(running, ["--advisories", elsewhere])
            #expect(uncovered.codes.contains("advisories-not-covered") && !uncovered.codes.contains("advisory-medium"), "\(uncovered.codes.sorted())")
            let broken = try await CommandRunner.vigilDetached([
                "server", "check", running.url(path: ""), "--ca-file", TestPaths.caBundle, "--advisories", damaged,
            ])
            #expect(
                broken.status == 2 && broken.errorCode == "ServerCheckError bad-data" && broken.standardError.contains("compiled"), "\(broken.standardError)")
        }
    }

    /// --http-port: plain http that answers instead of redirecting is a warning.
    @Test func plainHTTPThatDoesNotRedirectIsSaid() async throws {
        try await withRunningSimulator("server-hardened") { running in
            let plain = try #require(URLComponents(string: running.url(scheme: "http", path: ""))?.port)
            let found = try await Self.check(running, ["--http-port", String(plain)])
            #expect(found.codes.contains("http-not-redirected"), "\(found.codes.sorted())")
            #expect(Self.grade(found.report) == "A", "a warning costs A+")
        }
    }
}
