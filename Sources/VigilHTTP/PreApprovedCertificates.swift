/// `connection.approved-certificates`: leaf fingerprints an administrator approved in advance, per
/// host (and port, when given). They count as the user's approvals, under the same rule
/// (``VigilCertificates/ApprovalRule``): a pre-approval never makes broken cryptography acceptable.
public struct PreApprovedCertificates: Sendable, Hashable {
    /// `host` or `host:port` (lower case) to fingerprints (upper-case hex with colons, as
    /// ``VigilCertificates/Certificate/sha256Fingerprint`` writes them).
    public private(set) var entries: [String: Set<String>] = [:]

    public init() {}

    /// From the setting's `HOST[:PORT]=SHA256` items (validated by the settings catalogue).
    public init(settingValues: [String]) {
        for item in settingValues {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { continue }
            let hex = parts[1].filter { $0 != ":" }.uppercased()
            guard hex.count == 64 else { continue }
            var pairs: [String] = []
            var index = hex.startIndex
            while index < hex.endIndex {
                let next = hex.index(index, offsetBy: 2)
                pairs.append(String(hex[index..<next]))
                index = next
            }
            entries[HostKey.key(parts[0]), default: []].insert(pairs.joined(separator: ":"))
        }
    }

    /// The fingerprints approved for `endpoint`: for its host and port, and for its host alone.
    public func fingerprints(for endpoint: Endpoint) -> Set<String> {
        HostKey.keys(for: endpoint).reduce(into: Set<String>()) { $0.formUnion(entries[$1] ?? []) }
    }
}
