import Foundation
import Synchronization
import VigilSuite

/// What the end of a `vigil simulate` run, or a signal, must undo: the private Secret Service once it started,
/// and the run's directory unless kept. Set from the run, read by the signal handler.
final class SignalCleanup: Sendable {
    private let started = Mutex<PrivateSecretService?>(nil)
    /// The run's directory to remove; nil when `--keep` keeps it.
    let work: String?

    init(work: String?) { self.work = work }

    /// The private Secret Service, once started.
    var service: PrivateSecretService? {
        get { started.withLock { $0 } }
        set { started.withLock { $0 = newValue } }
    }

    /// Stops the service (when it started) and removes the run's directory; true when a service was stopped.
    func run() -> Bool {
        let service = self.service
        service?.stop()
        if let work { try? FileManager.default.removeItem(atPath: work) }
        return service != nil
    }
}
