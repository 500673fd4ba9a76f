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
        var raw: [String: [UInt8]] = [:]
        var dropped = 0
        var next = 0
        var datagrams: [[UInt8]] = []
    }

    /// The most questions kept whole (each up to 512 bytes), for the search beyond their first name.
    static let datagramLimit = 4096

    private let book = Mutex(Book())

    /// An empty book.
    public init() {}

    /// Journals a name asked (any question type) that is not a scenario's, with its bytes as sent.
    func note(_ name: String, raw: [UInt8]) {
        book.withLock { book in
            guard book.raw[name] == nil else { return }
            guard book.asked.count < Self.limit else {
                book.dropped += 1
                return
            }
            book.raw[name] = raw
            book.asked.append(name)
        }
    }

    /// Keeps a question's bytes as they came (a secret may be in a second question, an EDNS
    /// option, or a packet that is no query at all).
    func note(datagram bytes: [UInt8]) {
        book.withLock { book in
            if book.datagrams.count < Self.datagramLimit { book.datagrams.append(Array(bytes.prefix(512))) } else { book.dropped += 1 }
        }
    }

    /// The address given to `name` (a new one the first time it is asked for one).
    func address(for name: String) -> [UInt8] {
        book.withLock { book in
            if let known = book.addresses[name] { return known }
            guard book.next < Self.limit else { return [127, 1, 255, 254] }
            book.next += 1
            let address: [UInt8] = [127, 1, UInt8(book.next >> 8), UInt8(book.next & 0xFF)]
            book.addresses[name] = address
            book.names[address.map(String.init).joined(separator: ".")] = name
            return address
        }
    }

    /// The names asked whose bytes hold a planted secret (read as a name: split by dots, any case),
    /// with where: a name is a question sent in clear to whoever answers DNS.
    public func secrets(_ planted: [PlantedSecret]) -> [(name: String, found: String)] {
        let search = CredentialSearch(planted: planted)
        return book.withLock { book in
            var found = book.asked.compactMap { name in book.raw[name].flatMap { search.findInName($0) }.map { (name, $0) } }
            // Anywhere else in a question: by its bytes (the names are not shown for those).
            if found.isEmpty, let how = book.datagrams.lazy.compactMap({ search.find(in: $0) }).first { found.append(("", how)) }
            return found
        }
    }

    /// The name an address was given for, if any (`127.1.0.3`).
    public func name(for address: String) -> String? { book.withLock { $0.names[address] } }

    /// Every name asked that is not a scenario's, sorted; and how many more were not kept.
    public var asked: (names: [String], more: Int) { book.withLock { (Array($0.asked.sorted()), $0.dropped) } }
}
