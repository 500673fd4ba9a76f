import Foundation
import Synchronization
public import VigilSimulator

/// The names an external client meets in the suite's network namespace: one name server per
/// scenario played (on 127.53.0.N, N free while it plays), answering the scenario's host names,
/// and every other name asked anywhere given an address the recorder owns (``OtherHostNames``).
/// Each client is run with a resolver file naming its scenario's server, bound over the
/// namespace's `/etc/resolv.conf` (``NetworkNamespace/withResolver(_:over:_:)``).
public final class ClientNetwork: Sendable {
    /// Names outside the scenarios, for the whole run.
    public let others: OtherHostNames
    /// The file `/etc/resolv.conf` leads to in the namespace.
    public let resolverTarget: String
    private let taken = Mutex<Set<Int>>([])

    /// The network of a run whose resolver file is `resolverTarget` (``NetworkNamespace/useNameServer(directory:)``).
    public init(others: OtherHostNames, resolverTarget: String) {
        self.others = others
        self.resolverTarget = resolverTarget
    }

    /// A scenario's name server answering `names` (name to addresses), on an address no other
    /// scenario uses while it plays, and its resolver file written to `directory`.
    func nameServer(names: [String: [String]], directory: String) async throws -> (server: NameServer, file: String, slot: Int) {
        let slot = try taken.withLock { taken -> Int in
            guard let free = (1...60_000).first(where: { !taken.contains($0) }) else { throw SuiteError(.networkNamespace, "no name server address is free") }
            taken.insert(free)
            return free
        }
        let address = "127.53.\(slot >> 8).\(slot & 0xFF)"
        do {
            let server = try await NameServer.start(address: address, names: names, others: others)
            let file = try NetworkNamespace.resolverFile(nameServer: address, directory: directory, name: "client-resolv.conf")
            return (server, file, slot)
        } catch {
            release(slot)
            throw error
        }
    }

    /// The address `slot` is free again.
    func release(_ slot: Int) { _ = taken.withLock { $0.remove(slot) } }
}
