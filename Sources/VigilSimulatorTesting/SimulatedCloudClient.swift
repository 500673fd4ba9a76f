import Foundation
public import VigilSimulator
import VigilText

/// A client for tests of a simulated cloud, over either ``SimulatorTransport``: the same
/// requests, in process or through real sockets. Made by ``withSimulatedCloud(_:certificatesDirectory:transport:clock:_:)``.
///
/// ```swift
/// try await withSimulatedCloud(scenario, certificatesDirectory: certificates, transport: .inProcess) { cloud in
///     let answer = try await cloud.execute("PROPFIND", "/remote.php/dav/files/alice/", headers: [("Authorization", basic)])
///     #expect(answer.status == 207)
///     #expect(cloud.simulator.journal.entries.last?.accepted == true)
/// }
/// ```
public struct SimulatedCloudClient: Sendable {
    /// How requests reach the simulator.
    public let transport: SimulatorTransport
    /// The simulator: its journal (what reached it), its responder, its CA file.
    public let simulator: HostSimulator
    /// The listeners, when live; empty in process.
    public let listeners: [HostSimulator.Listener]

    /// The URL of `path` on host `host` (1-based) over `scheme`, as the simulator's answers name it:
    /// the listener's address and port when live, the host's address alone in process.
    public func url(host: Int = 1, scheme: String = "https", path: String = "/") -> String {
        if let listener = listeners.first(where: { $0.host == host && $0.scheme == scheme }) { return listener.url + path }
        let addresses = simulator.configuration.addresses
        let address = addresses.indices.contains(host - 1) ? addresses[host - 1] : "127.0.0.1"
        return "\(scheme)://\(address.contains(":") ? "[\(address)]" : address)" + path
    }

    /// `address[:port]` of host `host` over `scheme`, as a `Host` header names it.
    func authority(host: Int, scheme: String) -> String {
        let url = self.url(host: host, scheme: scheme, path: "")
        return url.components(separatedBy: "://").last ?? url
    }

    /// Sends `method` `target` (a path and query) to host `host` over `scheme`, with `headers`
    /// and `body`, and returns the answer. In process, an answer the scenario cuts on the wire
    /// (``VigilSimulator/SimulatedResponse/abort``) throws ``SimulatedCloudError``; live, the
    /// connection shows it.
    public func execute(
        _ method: String, _ target: String, host: Int = 1, scheme: String = "https", headers: [(String, String)] = [], body: [UInt8] = []
    ) async throws -> SimulatedCloudResponse {
        guard simulator.serves(host: host, scheme: scheme) else {
            throw SimulatedCloudError(.noSuchHost, "The simulator has no \(scheme) host \(host).")
        }
        // As a client sends it: the host's authority (the responder names issuers and redirects
        // from it), unless the test gives its own.
        let withHost = headers.contains { $0.0.lowercased() == "host" } ? headers : [("Host", authority(host: host, scheme: scheme))] + headers
        switch transport {
        case .inProcess:
            var fields: [String: String] = [:]
            for (name, value) in withHost { fields[name.lowercased()] = fields[name.lowercased()].map { $0 + ", " + value } ?? value }
            var request = SimulatedRequest(method: method, target: target, headers: fields, hasBody: !body.isEmpty, scheme: scheme, host: host)
            request.body = body
            request.headerNames = withHost.map(\.0)
            let answer = try simulator.answerInProcess(request)
            if let abort = answer.abort {
                throw SimulatedCloudError(.cutOnTheWire, "The scenario cuts this answer on the wire (\(abort)); only a live transport shows it.")
            }
            return SimulatedCloudResponse(status: answer.status, headers: answer.headers.map { (name: $0.0, value: $0.1) }, body: answer.body)
        case .live:
            // Every host the simulator serves listens while it runs.
            guard let listener = listeners.first(where: { $0.host == host && $0.scheme == scheme }) else {
                throw SimulatedCloudError(.noSuchHost, "The simulator has no \(scheme) listener for host \(host).")
            }
            return try await LiveExchange.send(method: method, target: target, headers: withHost, body: body, to: listener, caFile: simulator.caFile)
        }
    }

    /// `GET target` on host `host` over `scheme`.
    public func get(_ target: String, host: Int = 1, scheme: String = "https", headers: [(String, String)] = []) async throws -> SimulatedCloudResponse {
        try await execute("GET", target, host: host, scheme: scheme, headers: headers)
    }

    /// A form POST (`application/x-www-form-urlencoded`), fields percent-encoded in order.
    public func post(_ target: String, form: [(String, String)], host: Int = 1, headers: [(String, String)] = []) async throws -> SimulatedCloudResponse {
        func encoded(_ text: String) -> String { PercentEncoding.encode(text, allowing: PercentEncoding.isUnreserved) }
        let body = form.map { encoded($0.0) + "=" + encoded($0.1) }.joined(separator: "&")
        return try await execute(
            "POST", target, host: host, headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers, body: Array(body.utf8))
    }
}

/// Runs `body` with `scenario` playing over `transport`, and stops the simulator when `body`
/// ends, by returning or by throwing. In process nothing listens; live, every host listens on
/// loopback (free ports) until `body` ends.
public func withSimulatedCloud<T>(
    _ scenario: Scenario, certificatesDirectory: String, transport: SimulatorTransport, clock: any SimulatorClock = SystemSimulatorClock(),
    _ body: (SimulatedCloudClient) async throws -> T
) async throws -> T {
    var configuration = HostSimulator.Configuration(scenario: scenario, certificatesDirectory: certificatesDirectory)
    configuration.clock = clock
    let simulator = try HostSimulator(configuration: configuration, journal: try Journal())
    guard transport == .live else {
        return try await body(SimulatedCloudClient(transport: transport, simulator: simulator, listeners: []))
    }
    let running = try await RunningHostSimulator(simulator)
    do {
        let result = try await body(SimulatedCloudClient(transport: transport, simulator: simulator, listeners: running.listeners))
        await running.stop()
        return result
    } catch {
        await running.stop()
        throw error
    }
}
