import VigilCertificates
import VigilHTTP
import VigilStore
import VigilText

/// What this user's store knows of one server, for `inspect`: its active approvals and the leaves
/// reviewed when its accounts were added. Read once per inspection, only looked at
/// (``VigilStore/VigilDatabase/lookingOnly(path:)``: never created or migrated); empty without a
/// database.
struct KnownCertificates {
    /// The active approvals for the server's host (in canonical form) and port, oldest first.
    var approvals: [ApprovedCertificate] = []
    /// The accounts of the server's origin, by id, each with its reviewed leaf's SHA-256.
    var reviewed: [(account: String, sha256: String)] = []
    /// What could not be read (a damaged row, a reviewed chain stored damaged): what is above may
    /// be incomplete, and the interception check with it. Empty when all was read.
    var unreadable: [String] = []

    static func read(for endpoint: Endpoint) async -> KnownCertificates {
        guard let database = await VigilDatabase.lookingOnly(path: VigilDatabase.defaultPath()) else { return KnownCertificates() }
        var known = KnownCertificates()
        let host = HostName.canonical(endpoint.host)
        do {
            known.approvals = try await CertificateApprovals(database: database).list().filter {
                $0.port == endpoint.port && HostName.canonical($0.host) == host
            }
        } catch {
            known.unreadable.append("the approvals (\(error))")
        }
        let accounts: [Account]
        do { accounts = try await Accounts(database: database).list() } catch {
            known.unreadable.append("the accounts (\(error))")
            return known
        }
        for account in accounts {
            guard let server = try? Endpoint(url: account.server), server.isSameOrigin(as: endpoint) else { continue }
            do {
                guard let leaf = try account.reviewedChain()?.first else { continue }
                known.reviewed.append((account.id, leaf.sha256Fingerprint))
            } catch {
                known.unreadable.append("the chain reviewed for account \(account.id), stored damaged")
            }
        }
        return known
    }
}
