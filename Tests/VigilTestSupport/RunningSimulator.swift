import Foundation
package import VigilSimulator

/// A simulator playing one fixture scenario in this process, for curl to talk to.
package final class RunningSimulator: @unchecked Sendable {  // immutable after init
    package let simulator: HostSimulator
    package let listeners: [HostSimulator.Listener]
    package let clock: ManualSimulatorClock
    private let running: RunningHostSimulator

    package static let fixtures = TestPaths.root.appendingPathComponent("mitm-fixtures").path
    package static let certificates = TestPaths.root.appendingPathComponent("testcerts").path

    /// `upstream`: the simulator sits in front of that server (``ReverseProxy``).
    /// `port`: the hosts' HTTPS port (plain HTTP the next), to play another scenario where one
    /// played before (the same server, changed); 0 picks free ports. `fixtures`: a directory of
    /// the test's own scenarios (a hostile variant of one), else the repository's.
    package init(_ name: String, upstream: ReverseProxy? = nil, port: Int = 0, fixtures: String = RunningSimulator.fixtures) async throws {
        let scenario = try ScenarioLibrary(directory: fixtures).scenario(named: name)
        var configuration = HostSimulator.Configuration(scenario: scenario, certificatesDirectory: Self.certificates)
        configuration.upstream = upstream
        configuration.port = port
        // Now, so that tokens the simulator issues are current for a client on the real clock.
        let clock = ManualSimulatorClock(Date())
        configuration.clock = clock
        // A fixed port (a test that brings a server back where it was): the port just given up, or
        // the plain-HTTP one beside it, may still be held for a moment by a simulator stopping or
        // by a test running beside this one. Tried again for up to five seconds; port 0 never needs it.
        var attempt = 0
        var started: RunningHostSimulator?
        while started == nil {
            do {
                started = try await RunningHostSimulator(try HostSimulator(configuration: configuration, journal: try Journal()))
            } catch  where port != 0 && attempt < 50 && "\(error)".contains("Address already in use") {
                attempt += 1
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        guard let running = started else { throw CancellationError() }
        self.simulator = running.simulator
        self.listeners = running.listeners
        self.clock = clock
        self.running = running
    }

    package func url(host: Int = 1, scheme: String = "https", path: String = "/status.php") -> String {
        (listeners.first { $0.host == host && $0.scheme == scheme }?.url ?? "https://127.0.0.1:1") + path
    }

    package func stop() async {
        await running.stop()
    }

    /// curl with the test CA; returns exit status, HTTP status and headers.
    package func curl(_ extra: [String], url: String) async throws -> (exit: Int32, status: Int, headers: String, body: String) {
        let directory = try TestPaths.temporaryDirectory()
        let headerFile = directory.appendingPathComponent("headers").path
        let result = try await CommandRunner.runDetached(
            "/usr/bin/curl",
            [
                "-s", "-S", "--max-time", "10", "--cacert", RunningSimulator.certificates + "/ca-bundle.pem",
                "-D", headerFile, "-w", "\n%{http_code}",
            ] + extra + [url])
        let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        let status = Int(lines.last ?? "") ?? 0
        let headers = (try? String(contentsOfFile: headerFile, encoding: .utf8)) ?? ""
        return (result.status, status, headers, lines.dropLast().joined(separator: "\n"))
    }
}

/// Runs `body` with the scenario `name` playing, and stops the simulator when `body` ends, by
/// returning or by throwing (awaited, unlike a `defer { Task { ... } }`). A simulator that cannot
/// start throws, failing the test instead of hanging it.
package func withRunningSimulator<T>(_ name: String, port: Int = 0, _ body: (RunningSimulator) async throws -> T) async throws -> T {
    let running = try await RunningSimulator(name, port: port)
    do {
        let result = try await body(running)
        await running.stop()
        return result
    } catch {
        await running.stop()
        throw error
    }
}
