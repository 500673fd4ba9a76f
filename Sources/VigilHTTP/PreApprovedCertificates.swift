/// `connection.approved-certificates`: leaf fingerprints an administrator approved in advance, per
/// host (and port, when given). They count as the user's approvals, under the same rule
/// (``VigilCertificates/ApprovalRule``): a pre-approval never makes broken cryptography acceptable.
public struct PreApprovedCertificates: Sendable, Hashable {
    private var values = HostKeyedValues()

    /// No pre-approvals.
    public init() {}

    /// From the setting's `HOST[:PORT]=SHA256` items (validated by the settings catalogue); the
    /// fingerprints kept as ``VigilCertificates/Certificate/sha256Fingerprint`` writes them.
    public init(settingValues: [String]) {
        values = HostKeyedValues(settingValues: settingValues) { text in
            let hex = Array(text.filter { $0 != ":" }.uppercased())
            guard hex.count == 64 else { return nil }
            return stride(from: 0, to: 64, by: 2).map { String(hex[$0...$0 + 1]) }.joined(separator: ":")
        }
    }

    /// The fingerprints approved for `endpoint`.
    public func fingerprints(for endpoint: Endpoint) -> Set<String> { values.values(for: endpoint) }
}
