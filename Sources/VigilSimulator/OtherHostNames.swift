import Synchronization

/// The names of hosts outside the scenarios, as asked of the run's name servers: each name gets
/// an address of its own in 127.1.0.0/16, the same for the whole run, so that a connection the
/// recorder receives names the host it was for (`telemetry.example.net:443`). Every name asked is
/// kept (up to ``limit``), for the report.
public final class OtherHostNames: Sendable {
    /// The most names kept; later ones share the last address.
    public static let limit = 16_000

    private struct Book {
        var addresses: [String: [UInt8]] = [:]
        var names: [String: String] = [:]
        var asked: [String] = []
        var dropped = 0
    }

    private let book = Mutex(Book())

    /// An empty book.
    public init() {}

    /// The address given to `name` (a new one the first time it is asked); `name` is journalled.
    func address(for name: String) -> [UInt8] {
        book.withLock { book in
            if let known = book.addresses[name] { return known }
            guard book.asked.count < Self.limit else {
                book.dropped += 1
                return [127, 1, 255, 254]
            }
            let number = book.asked.count + 1
            let address: [UInt8] = [127, 1, UInt8(number >> 8), UInt8(number & 0xFF)]
            book.addresses[name] = address
            book.names[address.map(String.init).joined(separator: ".")] = name
            book.asked.append(name)
            return address
        }
    }

    /// The name an address was given for, if any (`127.1.0.3`).
    public func name(for address: String) -> String? { book.withLock { $0.names[address] } }

    /// Every name asked that is not a scenario's, sorted; and how many more were not kept.
    public var asked: (names: [String], more: Int) { book.withLock { (Array($0.asked.sorted()), $0.dropped) } }
}
