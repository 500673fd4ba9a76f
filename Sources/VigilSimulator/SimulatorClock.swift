public import Foundation
import Synchronization

/// The simulator's time, injectable so tests of time windows need no sleeping.
public protocol SimulatorClock: Sendable {
    func now() -> Date
}

/// Wall-clock time.
public struct SystemSimulatorClock: SimulatorClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that moves only when told to.
public final class ManualSimulatorClock: SimulatorClock {
    private let current: Mutex<Date>
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = Mutex(start) }
    public func now() -> Date { current.withLock { $0 } }
    public func advance(seconds: Double) { current.withLock { $0 += seconds } }
}
