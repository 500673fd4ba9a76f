import FoundationEssentials
import Glibc
import Synchronization
import VigilCertificates

/// The process's answers from OCSP responders and CRL distribution points. A usable answer is
/// kept until its nextUpdate (at most a day); a failure for a minute, so that an outage costs one
/// timeout, not one per connection; an answer that turned out unusable is dropped. Bounded.
final class RevocationCache: Sendable {
    static let shared = RevocationCache()
    static let maximumEntries = 256

    private struct Entry {
        var result: Result<[UInt8], RevocationFetchError>
        var until: Date
    }
    private let entries = Mutex<[RevocationRequest: Entry]>([:])

    func answer(for request: RevocationRequest, now: Date) -> Result<[UInt8], RevocationFetchError>? {
        entries.withLock { entries in
            guard let entry = entries[request] else { return nil }
            if entry.until <= now {
                entries[request] = nil
                return nil
            }
            return entry.result
        }
    }

    /// A fresh fetch: a success provisionally for a minute (``settle(_:now:)`` sets its real
    /// lifetime once it is read), a failure for a minute.
    func store(_ result: Result<[UInt8], RevocationFetchError>, for request: RevocationRequest, now: Date) {
        entries.withLock { entries in
            if entries.count >= Self.maximumEntries { entries.removeAll() }
            entries[request] = Entry(result: result, until: now.addingTimeInterval(60))
        }
    }

    /// After a report: each usable answer kept until its nextUpdate (at most a day), each unusable one dropped.
    func settle(_ answers: [(RevocationRequest, RevocationCheck)], now: Date) {
        entries.withLock { entries in
            for (request, check) in answers {
                guard case .success = entries[request]?.result else { continue }
                guard check.status != nil, let next = check.nextUpdate else {
                    if check.problem != nil || check.status == nil { entries[request] = nil }
                    continue
                }
                let until = min(next, now.addingTimeInterval(86_400))
                if until > now { entries[request]?.until = until } else { entries[request] = nil }
            }
        }
    }
}
