import Foundation
import Testing
import VigilTestSupport

/// A verdict is a function of its inputs: the CRL test PKIs (scripts/crl-pki.py), judged by
/// `vigil inspect --json` in two separate processes (each with its own hash seed), give the same
/// report byte for byte. (x509-limbo is run twice and compared by scripts/limbo.sh.)
@Suite("The same inputs, the same verdict")
struct VerdictDeterminismTests {
    @Test func everyCRLCaseGivesTheSameReportInAnotherProcess() throws {
        let directory = try TestPaths.temporaryDirectory()
        let made = try CommandRunner.run("/usr/bin/python3", [TestPaths.root.appendingPathComponent("scripts/crl-pki.py").path, directory.path])
        #expect(made.status == 0, "\(made.standardError)")
        let cases = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasSuffix(".json") }.sorted()
        #expect(cases.count >= 20)
        for name in cases {
            let base = directory.appendingPathComponent(name)
            let arguments = [
                "inspect", "--json", "--file", base.appendingPathComponent("chain.pem").path, "--ca-file", base.appendingPathComponent("root.pem").path,
                "--crl-file", base.appendingPathComponent("crls.pem").path, "--at", "2026-01-15T00:00:00Z", "--host", "server.test",
            ]
            let first = try CommandRunner.vigil(arguments)
            let second = try CommandRunner.vigil(arguments)
            #expect(first.status == second.status && first.standardOutput == second.standardOutput, "\(name)")
            #expect(first.standardOutput.contains("\"revocation\""), "\(name): \(first.standardOutput.prefix(200))")
        }
    }
}
