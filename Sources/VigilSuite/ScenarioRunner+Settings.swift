// ScenarioRunner's settings stage: the scenario's host names and the user's settings, expanded for this run's ports.
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
    /// The fixture's host names pinned to their hosts' HTTPS addresses and ports.
    static func resolutions(_ scenario: Scenario, _ running: RunningHostSimulator) -> [HostResolution] {
        (scenario.client?.hosts ?? [:]).sorted { $0.key < $1.key }.compactMap { name, host in
            running.listeners.first { $0.host == host && $0.scheme == "https" }.flatMap { try? HostResolution(parsing: "\(name):\($0.port):\($0.address)") }
        }
    }

    /// `{https:NAME}` as `https://NAME:PORT` for each pinned name; `https://NAME` with
    /// `usualPort` (an IPv4 host, reached on 443 in the suite's network namespace).
    static func expand(_ template: String, _ resolve: [HostResolution], usualPort: Bool = false) -> String {
        resolve.reduce(template) {
            let port = usualPort && !$1.address.contains(":") ? "" : ":\($1.port)"
            return $0.replacingOccurrences(of: "{https:\($1.host)}", with: "https://\($1.host)\(port)")
        }
    }

    /// The fixture's settings written as the user's settings file and loaded the way every command
    /// loads them (no managed file, no VIGIL_ variables); `{https:N}` and `{http:N}` name the
    /// running hosts.
    func loadSettings(config: String, running: RunningHostSimulator) throws -> Settings {
        let userFile = config + "/vigil/settings.json"
        var object: [String: Any] = [:]
        for (key, value) in scenario.client?.settings ?? [:] {
            switch value {
            case .string(let text): object[key] = running.resolve(try expandPins(text))
            case .integer(let number): object[key] = number
            case .bool(let flag): object[key] = flag
            case .strings(let list): object[key] = try list.map { running.resolve(try expandPins($0)) }
            }
        }
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: URL(fileURLWithPath: userFile))
        let settings = try SettingsLoader(environment: [
            "HOME": directory, "XDG_CONFIG_HOME": config,
            SettingsLocations.managedFileVariable: directory + "/no-managed-settings.json",
        ]).load()
        if let problem = settings.issues.first {
            throw SuiteError(.invalidFixture, "\(scenario.name): client.settings: \(problem)")
        }
        return settings
    }

    /// `{spki:CASE}` and `{sha256:CASE}` in a fixture's setting: the SPKI pin or the fingerprint of
    /// that testcerts case's leaf (the test PKI is regenerated with new keys, so fixtures name
    /// certificates, not their hashes).
    func expandPins(_ text: String) throws -> String {
        var result = text
        for (marker, value) in [("{spki:", { (leaf: Certificate) in leaf.spkiPin }), ("{sha256:", { (leaf: Certificate) in leaf.sha256Fingerprint })] {
            while let open = result.range(of: marker), let close = result.range(of: "}", range: open.upperBound..<result.endIndex) {
                let name = String(result[open.upperBound..<close.lowerBound])
                let path = (certificatesDirectory as NSString).appendingPathComponent("\(name).pem")
                guard let leaf = try? Certificate.load(path: path).first else {
                    throw SuiteError(.invalidFixture, "\(scenario.name): client.settings names \(marker)\(name)}, and \(path) is not a certificate.")
                }
                result.replaceSubrange(open.lowerBound..<close.upperBound, with: value(leaf))
            }
        }
        return result
    }
}
