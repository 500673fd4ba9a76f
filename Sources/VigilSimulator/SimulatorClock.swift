public import Foundation

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
public final class ManualSimulatorClock: SimulatorClock, @unchecked Sendable {  // guarded by lock
    private let lock = NSLock()
    private var current: Date
    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }
    public func now() -> Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }
    public func advance(seconds: Double) {
        lock.lock()
        current += seconds
        lock.unlock()
    }
}
