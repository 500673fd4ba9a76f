import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// `connection.locally-added-roots` against the simulator, the test root made a root of "the
/// system store" (SSL_CERT_FILE) that is not a public one: `ask` is approvable, `refuse` is not,
/// even for a chain that is untrusted for another reason too; where the public roots cannot be
/// read, no system-store root passes `ask` or `refuse` as public. Issue 33.
@Suite("Locally added roots", .serialized, .timeLimit(.minutes(3)))
struct LocallyAddedRootTests {
    static let systemStore: [String: String?] = ["SSL_CERT_FILE": TestPaths.caBundle, "SSL_CERT_DIR": "/nonexistent"]

    func inspect(_ url: String, _ extra: [String: String?]) async throws -> (result: CommandResult, reasons: [String], source: String?) {
        let result = try await CommandRunner.vigilDetached(["inspect", url, "--json"], environment: Self.systemStore.merging(extra) { $1 })
        let report = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
        let verdict = report?["verdict"] as? [String: Any]
        let reasons = (verdict?["reasons"] as? [[String: Any]])?.compactMap { $0["code"] as? String } ?? []
        return (result, reasons, (verdict?["basis"] as? [String: Any])?["source"] as? String)
    }

    /// The same files, time and store give the same report in every process (the public-root
    /// lookup, the finding, the profile's reason).
    @Test func theSameInputsGiveTheSameReportInAnotherProcess() throws {
        let arguments = ["inspect", "--file", TestPaths.testcert("valid-127.0.0.1-chain.pem"), "--host", "127.0.0.1", "--at", "2030-01-01T00:00:00Z", "--json"]
        let first = try CommandRunner.vigil(arguments, environment: Self.systemStore)
        let second = try CommandRunner.vigil(arguments, environment: Self.systemStore)
        #expect(first.status == 0 && first.standardOutput.contains("locally-added-root"), "\(first.standardOutput)")
        #expect(first.standardOutput == second.standardOutput)
    }

    @Test func trustAskAndRefuse() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let url = running.url(path: "")
            let trusted = try await inspect(url, [:])
            #expect(trusted.result.status == 0 && trusted.source == "locally-added", "\(trusted.result.standardOutput)")
            let asked = try await inspect(url, ["VIGIL_CONNECTION_LOCALLY_ADDED_ROOTS": "ask"])
            #expect(asked.result.status == 1 && asked.reasons == ["locally-added-root"], "\(asked.result.standardOutput)")
            let refused = try await inspect(url, ["VIGIL_CONNECTION_LOCALLY_ADDED_ROOTS": "refuse"])
            #expect(refused.result.status == 1 && refused.reasons == ["locally-added-root-refused"], "\(refused.result.standardOutput)")
        }
    }

    @Test func refuseHoldsForAChainUntrustedForAnotherReasonToo() async throws {
        try await withRunningSimulator("expired") { (running) async throws in
            let refused = try await inspect(running.url(path: ""), ["VIGIL_CONNECTION_LOCALLY_ADDED_ROOTS": "refuse"])
            #expect(refused.result.status == 1 && refused.reasons.contains("locally-added-root-refused"), "\(refused.result.standardOutput)")
            #expect(refused.reasons.contains("expired"), "\(refused.reasons)")
        }
    }

    @Test func withoutTheListOfPublicRootsNoSystemRootPassesAsPublic() async throws {
        try await withRunningSimulator("valid") { (running) async throws in
            let unknown: [String: String?] = ["VIGIL_PUBLIC_ROOTS": "/nonexistent"]
            let trusted = try await inspect(running.url(path: ""), unknown)
            #expect(trusted.result.status == 0 && trusted.source == "system-store", "\(trusted.result.standardOutput)")
            #expect(trusted.result.standardOutput.contains("not known here"), "the profile's reason says the list is unknown")
            let refused = try await inspect(running.url(path: ""), unknown.merging(["VIGIL_CONNECTION_LOCALLY_ADDED_ROOTS": "refuse"]) { $1 })
            #expect(refused.result.status == 1 && refused.reasons == ["locally-added-root-refused"], "\(refused.result.standardOutput)")
        }
    }

    /// `ask`: account setup asks as for any untrusted certificate; approved, the account is added.
    @Test(.enabled(if: TestPaths.hasKeyring, "needs a Secret Service: run `make test`"))
    func askIsApprovedAtAccountSetup() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            let url = running.url(path: "")
            let asking = Self.systemStore.merging(["VIGIL_CONNECTION_LOCALLY_ADDED_ROOTS": "ask"]) { $1 }
            let shown = try await inspect(url, ["VIGIL_CONNECTION_LOCALLY_ADDED_ROOTS": "ask"])
            let report = try JSONSerialization.jsonObject(with: Data(shown.result.standardOutput.utf8)) as? [String: Any]
            let fingerprint = try #require(((report?["certificates"] as? [[String: Any]])?.first?["fingerprints"] as? [String: Any])?["sha256"] as? String)
            let database = try TestPaths.temporaryDirectory().appendingPathComponent("vigil.sqlite").path
            let unasked = try await CommandRunner.vigilDetached(
                ["account", "add", url, "--user", "alice", "--password-stdin", "--database", database], environment: asking,
                input: Data("alice-test-password\n".utf8))
            #expect(unasked.status == 1 && running.simulator.journal.entries.isEmpty, "\(unasked.standardOutput)\(unasked.standardError)")
            let approved = try await CommandRunner.vigilDetached(
                ["account", "add", url, "--user", "alice", "--password-stdin", "--approve-certificate", fingerprint, "--database", database],
                environment: asking, input: Data("alice-test-password\n".utf8))
            #expect(approved.status == 0, "\(approved.standardOutput)\(approved.standardError)")
            let id = try #require(
                approved.standardOutput.firstMatch(of: #/[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}/#).map { String($0.output) })
            _ = try await CommandRunner.vigilDetached(["account", "remove", id, "--database", database], environment: asking)
        }
    }
}
