import Foundation
import Synchronization
import VigilHTTP
package import VigilSimulator

/// The names an external client meets in the suite's network namespace: one name server per
/// scenario played (on 127.53.0.N, N free while it plays), answering the scenario's host names,
/// and every other name asked anywhere given an address the recorder owns (``OtherHostNames``).
/// Each client is run with a resolver file naming its scenario's server, bound over the
/// namespace's `/etc/resolv.conf` (in its cell: ``ClientCell``).
package final class ClientNetwork: Sendable {
    /// Names outside the scenarios, for the whole run.
    package let others: OtherHostNames
    /// The file `/etc/resolv.conf` leads to in the namespace.
    package let resolverTarget: String
    private let taken = Mutex<Set<Int>>([])
    private let mappedAliases = Mutex<[Int: [String]]>([:])

    /// The network of a run whose resolver file is `resolverTarget` (``NetworkNamespace/useNameServer(directory:)``).
    package init(others: OtherHostNames, resolverTarget: String) {
        self.others = others
        self.resolverTarget = resolverTarget
    }

    /// A scenario's name server answering its host names, on an address no other scenario uses
    /// while it plays, and its resolver file written to `directory`. Each name resolves to an
    /// address of its own (127.64+N.x.y, N the host's place, x.y the scenario's) whose port 443
    /// the namespace maps to the host's address and port: the client meets the host under its
    /// name at `https://NAME`, as it meets a real server. Hosts on IPv6 keep their address and port.
    func nameServer(_ resolutions: [HostResolution], directory: String) async throws -> (server: NameServer, file: String, slot: Int) {
        let slot = try taken.withLock { taken -> Int in
            guard let free = (1...60_000).first(where: { !taken.contains($0) }) else { throw SuiteError(.networkNamespace, "no name server address is free") }
            taken.insert(free)
            return free
        }
        let address = "127.53.\(slot >> 8).\(slot & 0xFF)"
        var names: [String: [String]] = [:]
        var mapped: [String] = []
        do {
            let hosts = Array(Set(resolutions.map { "\($0.address)|\($0.port)" })).sorted()
            for resolution in resolutions {
                guard !resolution.address.contains(":"), let place = hosts.firstIndex(of: "\(resolution.address)|\(resolution.port)"), place < 16 else {
                    names[resolution.host, default: []].append(resolution.address)
                    continue
                }
                let alias = "127.\(64 + place).\(slot >> 8).\(slot & 0xFF)"
                if !mapped.contains(alias) {
                    try NetworkNamespace.map(alias, to: resolution.address, port: resolution.port)
                    mapped.append(alias)
                }
                names[resolution.host, default: []].append(alias)
            }
            let server = try await NameServer.start(address: address, names: names, others: others)
            let file: String
            do {
                file = try NetworkNamespace.resolverFile(nameServer: address, directory: directory, name: "client-resolv.conf")
            } catch {
                await server.stop()
                throw error
            }
            mappedAliases.withLock { $0[slot] = mapped }
            return (server, file, slot)
        } catch {
            for alias in mapped { NetworkNamespace.unmap(alias) }
            release(slot)
            throw error
        }
    }

    /// The addresses `slot` stands for are free again (its names' mappings removed).
    func release(_ slot: Int) {
        for alias in mappedAliases.withLock({ $0.removeValue(forKey: slot) }) ?? [] { NetworkNamespace.unmap(alias) }
        _ = taken.withLock { $0.remove(slot) }
    }
}
