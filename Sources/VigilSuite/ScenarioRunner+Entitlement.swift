// ScenarioRunner's entitlement stage: which certificates the client may trust (the ones served, the ones the user approved).
import Foundation
import Logging
import VigilAccounts
import VigilCertificates
import VigilHTTP
import VigilLogging
import VigilSecrets
import VigilSettings
import VigilSimulator
import VigilStore
import VigilThreads

extension ScenarioRunner {
    /// The leaves the user approved at setup (`client.account.approved`) and those the settings
    /// pre-approve (`{sha256:CASE}` in `connection.approved-certificates`), in one PEM file written
    /// to `directory`; nil when there are none.
    func approvedLeaves(directory: String) throws -> String? {
        var names: [String] = []
        if let premise = scenario.client?.account ?? approvedAtSetup, premise.approved == true {
            names.append(premise.certificate ?? HostSimulatorCases.genuine(for: "127.0.0.1"))
        }
        if case .strings(let entries) = scenario.client?.settings?["connection.approved-certificates"] {
            for entry in entries {
                var rest = Substring(entry)
                while let open = rest.range(of: "{sha256:"), let close = rest[open.upperBound...].firstIndex(of: "}") {
                    names.append(String(rest[open.upperBound..<close]))
                    rest = rest[rest.index(after: close)...]
                }
            }
        }
        guard !names.isEmpty else { return nil }
        let pem = try names.map { name in
            let path = (certificatesDirectory as NSString).appendingPathComponent("\(name).pem")
            guard let leaf = try? Certificate.load(path: path).first else {
                throw SuiteError(.invalidFixture, "\(scenario.name): the approved certificate \(name) is not at \(path).")
            }
            return leaf.pemEncoded
        }.joined()
        let file = directory + "/approved-certificates.pem"
        try Data(pem.utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// The hosts (not a man in the middle) whose non-genuine certificate a standard verifier
    /// accepts with the CA files the client is given: OpenSSL's `verify`, TLS server purpose, the
    /// host's address checked, security level 2 (Debian's default for its clients). An external
    /// client is entitled to trust those; Vigil's own client is held to its fixtures.
    func entitledCertificates(
        _ running: RunningHostSimulator, bundle data: Data, approved: (file: String?, fingerprints: Set<String>)
    ) -> Set<String> {
        var entitled: Set<String> = []
        let bundle = directory + "/entitlement-ca.pem"
        guard (try? data.write(to: URL(fileURLWithPath: bundle))) != nil else { return [] }
        defer { try? FileManager.default.removeItem(atPath: bundle) }
        for listener in running.listeners where listener.scheme == "https" && listener.forwardsTo == nil {
            // A revocation scenario's minted chain: the judge knows from the plan whether it may be used.
            guard let name = listener.certificate, name != HostSimulatorCases.genuine(for: listener.address),
                running.simulator.mintedChain(for: listener.address) == nil
            else { continue }
            let base = (certificatesDirectory as NSString).appendingPathComponent(name)
            let check = listener.address.contains(":") || listener.address.allSatisfy({ $0.isNumber || $0 == "." }) ? "-verify_ip" : "-verify_hostname"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
            // A leaf the user approved stands for itself: checked alone as its own anchor (a
            // partial chain of one; the name, the purpose and the key's strength still checked).
            // Every other chain must reach an anchor of the CA files (no partial chains there: an
            // intermediate in a CA file is not an anchor).
            let served: Certificate? = (try? Certificate.load(path: base + ".pem"))?.first
            let isApproved = approved.file != nil && served.map { approved.fingerprints.contains($0.sha256Fingerprint) } == true
            let anchors = isApproved ? ["-partial_chain", "-CAfile", approved.file ?? bundle] : ["-CAfile", bundle]
            process.arguments =
                ["verify"] + anchors + [
                    "-untrusted", base + "-chain.pem", "-purpose", "sslserver", check, listener.address, "-auth_level", "2",
                    base + ".pem",
                ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { continue }
            process.waitUntilExit()
            if process.terminationStatus == 0 { entitled.insert("\(listener.address)|\(name)") }
        }
        return entitled
    }

    /// SHA-256 fingerprint of the leaf each HTTPS host genuinely serves, by `host:port`: what the
    /// admin reads out to the user. Behind a man in the middle, that is the genuine host's leaf,
    /// not the forgery the interceptor presents.
    func servedLeaves(_ running: RunningHostSimulator) throws -> [String: String] {
        var leaves: [String: String] = [:]
        for listener in running.listeners where listener.scheme == "https" {
            guard var name = listener.certificate else { continue }
            if let minted = running.simulator.mintedChain(for: listener.address) {
                if let leaf = try Certificate.parsePEM(minted).first { leaves["\(listener.address):\(listener.port)"] = leaf.sha256Fingerprint }
                continue
            }
            if listener.forwardsTo != nil { name = HostSimulatorCases.genuine(for: listener.address) }
            let path = (certificatesDirectory as NSString).appendingPathComponent("\(name)-chain.pem")
            if let leaf = try Certificate.load(path: path).first { leaves["\(listener.address):\(listener.port)"] = leaf.sha256Fingerprint }
        }
        return leaves
    }
}
