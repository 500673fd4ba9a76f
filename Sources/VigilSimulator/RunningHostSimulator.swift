import Foundation

/// A ``HostSimulator`` started in this process, with its listeners known: what `vigil simulate`
/// and the tests use. ``stop()`` ends it.
public final class RunningHostSimulator: Sendable {
    /// The simulator running.
    public let simulator: HostSimulator
    /// Its listeners, as they started.
    public let listeners: [HostSimulator.Listener]
    private let task: Task<Void, any Error>

    /// Starts every listener and returns once all of them listen; throws when one cannot start
    /// (a port in use, a missing certificate).
    public init(_ simulator: HostSimulator) async throws {
        let (stream, continuation) = AsyncStream<[HostSimulator.Listener]>.makeStream()
        let task = Task {
            defer { continuation.finish() }
            try await simulator.run {
                continuation.yield($0)
                continuation.finish()
            }
        }
        var started: [HostSimulator.Listener] = []
        for await listeners in stream { started = listeners }
        if started.isEmpty {
            if case .failure(let error) = await task.result { throw error }
            throw SimulatorError(.startFailed, "The simulator stopped before its listeners started.")
        }
        self.simulator = simulator
        self.listeners = started
        self.task = task
    }

    /// The base URL of host `host` (1, 2, 3) on `scheme`, or nil when it has no such listener.
    public func url(host: Int = 1, scheme: String = "https") -> String? {
        listeners.first { $0.host == host && $0.scheme == scheme }?.url
    }

    /// `{https:N}` and `{http:N}` replaced by the listeners' base URLs; `{proxy:N}` and
    /// `{proxyhost:N}` by proxy N's URL and `address:port`.
    public func resolve(_ template: String) -> String {
        var text = template
        for listener in listeners { text = text.replacingOccurrences(of: "{\(listener.scheme):\(listener.host)}", with: listener.url) }
        for (number, url) in simulator.proxyURLs {
            text = text.replacingOccurrences(of: "{proxy:\(number)}", with: url)
            text = text.replacingOccurrences(of: "{proxyhost:\(number)}", with: String(url.dropFirst("http://".count)))
        }
        return text
    }

    /// Cancels the simulator and waits until it has stopped.
    public func stop() async {
        task.cancel()
        _ = await task.result
    }
}
