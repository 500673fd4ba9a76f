public import VigilCertificates

extension Account {
    /// The chain reviewed when the account was added, leaf first: nil when none is stored (an
    /// account from before Vigil kept it). One that is stored and cannot be read back throws
    /// ``StoreError`` `damaged`: a damaged chain is never taken for a missing one.
    public func reviewedChain() throws -> [Certificate]? {
        try Self.certificates(reviewedChainPEM, what: "certificate chain reviewed for account \(id)")
    }

    /// The CA certificates the account was added with (`--ca-file`): nil when it has none; throws
    /// ``StoreError`` `damaged` when they cannot be read back.
    public func trustAnchors() throws -> [Certificate]? {
        try Self.certificates(trustAnchorsPEM, what: "CA certificates kept with account \(id)")
    }

    /// The account's client certificate chain (mutual TLS), leaf first: nil when it has none;
    /// throws ``StoreError`` `damaged` when it cannot be read back (never taken for none).
    public func clientCertificate() throws -> [Certificate]? {
        try Self.certificates(clientCertificatePEM, what: "client certificate kept with account \(id)")
    }

    static func certificates(_ pem: String?, what: String) throws -> [Certificate]? {
        guard let pem else { return nil }
        let certificates: [Certificate]
        do {
            certificates = try Certificate.parsePEM(pem)
        } catch {
            throw StoreError(.damaged, "The \(what) is stored damaged (\(error)); it was left as it is.")
        }
        guard !certificates.isEmpty else { throw StoreError(.damaged, "The \(what) is stored damaged (no certificate in it); it was left as it is.") }
        return certificates
    }
}
