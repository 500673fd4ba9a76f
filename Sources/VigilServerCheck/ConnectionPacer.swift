/// How `server check` stays polite: every connection of a check asks here first, so that no more
/// than `perSecond` start in any second (spaced evenly) whatever runs at once, and counts them
/// (the report says how many were opened). At once is bounded by the scan itself
/// (``TLSScan/connectionsAtOnce``: versions scanned side by side, each one connection at a time).
public actor ConnectionPacer {
    /// The most connections started per second.
    public let perSecond: Int
    /// Connections started so far.
    public private(set) var opened = 0
    private var next: ContinuousClock.Instant?

    /// A pacer of `perSecond` connections a second (at least 1).
    public init(perSecond: Int) { self.perSecond = max(1, perSecond) }

    /// Waits for this connection's turn; throws when the task is cancelled while waiting.
    public func admit() async throws {
        try Task.checkCancellation()
        let now = ContinuousClock.now
        let start = max(now, next ?? now)
        next = start + .nanoseconds(1_000_000_000 / perSecond)
        opened += 1
        if start > now { try await Task.sleep(until: start, clock: .continuous) }
    }
}
