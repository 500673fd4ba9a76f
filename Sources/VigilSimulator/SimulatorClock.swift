public import Foundation
import Synchronization

/// The simulator's time, injectable so tests of time windows need no sleeping.
public protocol SimulatorClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// Wall-clock time.
public struct SystemSimulatorClock: SimulatorClock {
    /// The wall clock.
    public init() {}
    /// `Date()`.
    public func now() -> Date { Date() }
}

/// A clock that moves only when told to.
public final class ManualSimulatorClock: SimulatorClock {
    private let current: Mutex<Date>
    /// A clock stopped at `start` (by default 1,800,000,000 seconds after 1970).
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = Mutex(start) }
    /// The time it was set to.
    public func now() -> Date { current.withLock { $0 } }
    /// Moves the clock `seconds` forward.
    public func advance(seconds: Double) { current.withLock { $0 += seconds } }
}
