public import FoundationEssentials
import Glibc
public import VigilCertificates
import VigilText

/// The certificates users approved, per host and port, with revocation and an audit trail.
/// Approving and revoking each write their audit event in the same transaction.
public struct CertificateApprovals: Sendable {
    /// The database the approvals live in.
    public let database: VigilDatabase

    /// The approvals in `database`.
    public init(database: VigilDatabase) {
        self.database = database
    }

    /// Records that the user approved `certificate` (the leaf) for `host`:`port`. Approving an
    /// already approved certificate returns the existing approval.
    @discardableResult
    public func approve(_ certificate: Certificate, host: String, port: Int, note: String? = nil, at time: Date = Date()) throws -> ApprovedCertificate {
        let host = try Self.normalized(host: host, port: port)
        let summary = certificate.summary(at: time)
        return try write { db in
            if let existing = try Self.active(db, host: host, port: port, sha256: summary.fingerprints.sha256) { return existing }
            var approval = ApprovedCertificate(
                id: nil, host: host, port: port, sha256: summary.fingerprints.sha256, spkiSHA256: summary.fingerprints.spkiSHA256,
                subject: summary.subject, issuer: summary.issuer, notAfter: summary.validity.notAfter, approvedAt: time, note: note,
                der: Data(certificate.derEncoded))
            try approval.insert(db)
            var event = AuditEvent(time: time, kind: .certificateApproved, target: "\(host):\(port)", detail: approval.sha256)
            try event.insert(db)
            return approval
        }
    }

    /// Revokes the active approval `id`; afterwards the certificate is no longer accepted.
    @discardableResult
    public func revoke(id: Int64, reason: String, at time: Date = Date()) throws -> ApprovedCertificate {
        try write { db in
            guard var approval = try ApprovedCertificate.fetchOne(db, key: .integer(id)), approval.isActive else {
                throw StoreError(.notFound, "No active approval with id \(id).")
            }
            approval.revokedAt = time
            approval.revocationReason = reason
            try approval.update(db)
            var event = AuditEvent(time: time, kind: .certificateRevoked, target: "\(approval.host):\(approval.port)", detail: "\(approval.sha256): \(reason)")
            try event.insert(db)
            return approval
        }
    }

    /// SHA-256 fingerprints of the leaves approved (and not revoked) for `host`:`port`, for
    /// `VigilHTTP.EvaluatorTrustPolicy`.
    public func approvedLeaves(host: String, port: Int) throws -> Set<String> {
        let host = try Self.normalized(host: host, port: port)
        // Every active approval for the port, its host compared in canonical form: a row written
        // before hosts were canonical (`[0:0::1]`, `example.com.`) still counts for its host.
        return try read { db in
            Set(
                try ApprovedCertificate.fetchAll(db, where: "port = ? AND revokedAt IS NULL", [SQLiteValue(port)])
                    .filter { HostName.canonical($0.host) == host }.map(\.sha256))
        }
    }

    /// Every approval, oldest first; revoked ones only when asked.
    public func list(includingRevoked: Bool = false) throws -> [ApprovedCertificate] {
        try read { db in
            try ApprovedCertificate.fetchAll(db, where: includingRevoked ? nil : "revokedAt IS NULL", orderBy: "id")
        }
    }

    static func active(_ db: SQLiteConnection, host: String, port: Int, sha256: String) throws -> ApprovedCertificate? {
        try ApprovedCertificate.fetchAll(db, where: "port = ? AND sha256 = ? AND revokedAt IS NULL", [SQLiteValue(port), .text(sha256)])
            .first { HostName.canonical($0.host) == host }
    }

    /// Hosts in ``VigilText/HostName``'s canonical form (case, trailing dot, IPv6 spelling);
    /// IPv6 literals without brackets.
    static func normalized(host: String, port: Int) throws -> String {
        let host = HostName.canonical(host)
        guard !host.isEmpty, host.utf8.count <= 253, (1...65_535).contains(port) else {
            throw StoreError(.invalid, "An approval needs a host name and a port from 1 to 65535.")
        }
        return host
    }

    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T { try database.write(body) }
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T { try database.read(body) }
}
