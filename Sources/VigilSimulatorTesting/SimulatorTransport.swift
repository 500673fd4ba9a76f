/// How a ``SimulatedCloudClient`` reaches the simulated cloud, as Hummingbird's testing framework
/// offers `.router` and `.live`.
public enum SimulatorTransport: String, Sendable, CaseIterable, CustomStringConvertible {
    /// No socket: each request is handed to the simulator's responder in this process
    /// (``VigilSimulator/HostSimulator/answerInProcess(_:)``), journalled as a listener would.
    /// For what the simulated server says; no port, no certificate, no TLS.
    case inProcess = "in-process"
    /// Real listeners on loopback, HTTPS with the scenario's certificates; each request on a
    /// connection of its own, its chain verified against the simulator's CA. For what only a
    /// socket shows.
    case live

    /// `in-process` or `live`.
    public var description: String { rawValue }
}
