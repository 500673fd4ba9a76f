public import VigilHTTP
public import VigilStore

extension CertificateApprovals {
    /// The leaves approved for `endpoints`: the user's (this store's, every spelling of each host
    /// alike) and the administrator's in advance (`preApproved`), as ``VigilHTTP/ConnectionDecision`` reads them.
    public func leaves(for endpoints: [Endpoint], preApproved: PreApprovedCertificates = PreApprovedCertificates()) async throws -> ApprovedLeaves {
        var leaves = ApprovedLeaves()
        for endpoint in endpoints {
            leaves.add(try await approvedLeaves(host: endpoint.host, port: endpoint.port), for: endpoint, by: .user)
            leaves.add(preApproved.fingerprints(for: endpoint), for: endpoint, by: .administrator)
        }
        return leaves
    }
}
