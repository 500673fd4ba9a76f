public import FoundationEssentials
import Glibc
import VigilText

/// The accounts, each change with its audit event in the same transaction.
public struct Accounts: Sendable {
    /// The database the accounts live in.
    public let database: VigilDatabase

    /// The accounts in `database`.
    public init(database: VigilDatabase) {
        self.database = database
    }

    /// Adds `account`; a second account for the same user on the same server is refused.
    public func add(_ account: Account, pending: Bool = false, at time: Date = Date()) throws {
        var account = account
        account.pendingSince = pending ? time : nil
        try database.write { db in
            if let existing = try Account.fetchFirst(db, where: "server = ? AND user = ?", [.text(account.server), .text(account.user)]) {
                throw StoreError(
                    .invalid,
                    existing.pendingSince == nil
                        ? "\(account.user) on \(account.server) is already an account."
                        : "\(account.user) on \(account.server) is being added by another vigil, or its setup was interrupted less than a minute ago; try again in a minute."
                )
            }
            try account.insert(db)
            var event = AuditEvent(time: account.createdAt, kind: .accountAdded, target: account.server, detail: "\(account.user), \(account.method)")
            try event.insert(db)
        }
    }

    /// Removes the account `id` and returns it.
    @discardableResult
    public func remove(id: String, at time: Date = Date()) throws -> Account {
        try database.write { db in
            guard let account = try Account.fetchOne(db, key: .text(id)) else { throw StoreError(.notFound, "No account with id \(id).") }
            try account.delete(db)
            var event = AuditEvent(time: time, kind: .accountRemoved, target: account.server, detail: account.user)
            try event.insert(db)
            return account
        }
    }

    /// Replaces the reviewed chain of account `id` (a renewal a rule accepted), audited with why.
    @discardableResult
    public func replaceReviewedChain(id: String, with pem: String, because reason: String, at time: Date = Date()) throws -> Account {
        try database.write { db in
            guard var account = try Account.fetchOne(db, key: .text(id)) else { throw StoreError(.notFound, "No account with id \(id).") }
            account.reviewedChainPEM = pem
            try account.update(db)
            var event = AuditEvent(time: time, kind: .accountChainRenewed, target: account.server, detail: reason)
            try event.insert(db)
            return account
        }
    }

    /// Sets (or, with nil, removes) the account's client certificate chain (PEM); its key is the
    /// keyring's business. Audited with `reason`.
    @discardableResult
    public func setClientCertificate(id: String, pem: String?, because reason: String, at time: Date = Date()) throws -> Account {
        try change(id: id, audited: .accountClientCertificateChanged, because: reason, at: time) { $0.clientCertificatePEM = pem }
    }

    /// Sets (or, with nil, removes) the names of the account's access headers; their values are
    /// the keyring's business. Audited with `reason`.
    @discardableResult
    public func setAccessHeaderNames(id: String, names: [String]?, because reason: String, at time: Date = Date()) throws -> Account {
        try change(id: id, audited: .accountAccessHeadersChanged, because: reason, at: time) { $0.accessHeaderNames = names?.joined(separator: ",") }
    }

    /// One change of an account's row and its audit event, in one transaction.
    func change(id: String, audited kind: AuditEvent.Kind, because reason: String, at time: Date, _ body: (inout Account) -> Void) throws -> Account {
        try database.write { db in
            guard var account = try Account.fetchOne(db, key: .text(id)) else { throw StoreError(.notFound, "No account with id \(id).") }
            body(&account)
            try account.update(db)
            var event = AuditEvent(time: time, kind: kind, target: account.server, detail: reason)
            try event.insert(db)
            return account
        }
    }

    /// Records a token refresh or a login: the new expiry (and client), `needsLogin` cleared;
    /// or, with `needsLogin`, that the server refused the stored credentials. Audited.
    @discardableResult
    public func updateTokens(id: String, expiresAt: Date?, clientID: String? = nil, needsLogin: Bool, because reason: String, at time: Date = Date()) throws
        -> Account
    {
        try database.write { db in
            guard var account = try Account.fetchOne(db, key: .text(id)) else { throw StoreError(.notFound, "No account with id \(id).") }
            if !needsLogin { account.tokenExpiresAt = expiresAt }
            if let clientID { account.clientID = clientID }
            account.needsLogin = needsLogin
            account.refreshStartedAt = nil
            try account.update(db)
            var event = AuditEvent(
                time: time, kind: needsLogin ? .accountNeedsLogin : .accountTokensRefreshed, target: account.server, detail: "\(account.user): \(reason)")
            try event.insert(db)
            return account
        }
    }

    /// Replaces the CA certificates account `id` trusts (nil: the system store), audited.
    @discardableResult
    public func setTrustAnchors(id: String, pem: String?, because reason: String, at time: Date = Date()) throws -> Account {
        try database.write { db in
            guard var account = try Account.fetchOne(db, key: .text(id)) else { throw StoreError(.notFound, "No account with id \(id).") }
            account.trustAnchorsPEM = pem
            try account.update(db)
            var event = AuditEvent(time: time, kind: .accountTrustAnchorsChanged, target: account.server, detail: "\(account.user): \(reason)")
            try event.insert(db)
            return account
        }
    }

    /// Marks a refresh of account `id`'s tokens as under way (``Account/refreshStartedAt``), just
    /// before its refresh token is sent; ``updateTokens(id:expiresAt:clientID:needsLogin:because:at:)``
    /// clears it. Not audited: the refresh's outcome is.
    public func startRefresh(id: String, at time: Date = Date()) throws {
        try setRefreshStarted(id: id, time)
    }

    /// Clears the mark: the refresh token in the keyring is one the provider has not seen used
    /// (the rotated one was kept; or the old one never reached the provider, or the provider
    /// answered without taking it: 5xx, 429).
    public func endRefresh(id: String) throws {
        try setRefreshStarted(id: id, nil)
    }

    private func setRefreshStarted(id: String, _ time: Date?) throws {
        try database.write { db in
            guard var account = try Account.fetchOne(db, key: .text(id)) else { throw StoreError(.notFound, "No account with id \(id).") }
            account.refreshStartedAt = time
            try account.update(db)
        }
    }

    /// Writes `account`'s fields over its row (a new login's client and endpoints); the server and
    /// the user cannot change (they name the account).
    public func update(_ account: Account) throws {
        try database.write { db in
            guard let stored = try Account.fetchOne(db, key: .text(account.id)) else { throw StoreError(.notFound, "No account with id \(account.id).") }
            guard stored.server == account.server, stored.user == account.user else {
                throw StoreError(.invalid, "An account's server and user cannot change.")
            }
            try account.update(db)
        }
    }

    /// An audit event about an account that changes no row (tokens revoked at the server).
    public func record(_ kind: AuditEvent.Kind, target: String, detail: String, at time: Date = Date()) throws {
        try database.write { db in
            var event = AuditEvent(time: time, kind: kind, target: target, detail: detail)
            try event.insert(db)
        }
    }

    /// The accounts (not those whose setup is still keeping their secrets, or was interrupted),
    /// oldest first; accounts added in the same millisecond in the order they were added (the
    /// table's rowid), never by their random ids.
    public func list() throws -> [Account] {
        try database.read { db in try Account.fetchAll(db, where: "pendingSince IS NULL", orderBy: "createdAt, rowid") }
    }

    /// The account a user names: its id (any case), its label, a unique id prefix (at least
    /// four characters) or `user@host` (the server's host, unique). Throws
    /// ``StoreError/Code/notFound`` with the candidates when none or several match.
    public func resolve(_ reference: String) throws -> Account {
        let all = try list()
        let text = reference.trimmingSpaces()
        if let exact = all.first(where: { $0.id.lowercased() == text.lowercased() || $0.label == text }) { return exact }
        var candidates: [Account] = []
        if text.count >= 4 { candidates = all.filter { $0.id.lowercased().hasPrefix(text.lowercased()) } }
        if candidates.isEmpty, let at = text.lastIndex(of: "@") {
            let user = String(text[..<at]), host = text[text.index(after: at)...].lowercased()
            candidates = all.filter { $0.user == user && (URLComponents(string: $0.server)?.host?.lowercased() == host) }
        }
        if candidates.count == 1 { return candidates[0] }
        if candidates.isEmpty {
            throw StoreError(.notFound, "No account is \(text): give its id, a unique id prefix, its label or user@host (see vigil account list).")
        }
        throw StoreError(
            .notFound,
            "\(text) names \(candidates.count) accounts (\(candidates.map(\.id).joined(separator: ", "))); give more of the id, or a label (vigil account rename)."
        )
    }

    /// Gives account `id` the label `label` (nil removes it); a label is unique and is not an
    /// id's shape, so that a reference never means two accounts. Audited.
    @discardableResult
    public func rename(id: String, to label: String?, at time: Date = Date()) throws -> Account {
        if let label {
            guard !label.isEmpty, label.count <= 64, !label.contains("@"), label.allSatisfy({ !$0.isWhitespace && !$0.isNewline }),
                UUID(uuidString: label) == nil
            else {
                throw StoreError(.invalid, "A label is 1 to 64 characters without spaces or '@', and not an id.")
            }
        }
        return try database.write { db in
            guard var account = try Account.fetchOne(db, key: .text(id)) else { throw StoreError(.notFound, "No account with id \(id).") }
            if let label, let other = try Account.fetchFirst(db, where: "label = ?", [.text(label)]), other.id != id {
                throw StoreError(.invalid, "The label \(label) is already account \(other.id)'s.")
            }
            let old = account.label
            account.label = label
            try account.update(db)
            var event = AuditEvent(
                time: time, kind: .accountRenamed, target: account.server, detail: "\(account.user): \(old ?? "(no label)") -> \(label ?? "(no label)")")
            try event.insert(db)
            return account
        }
    }

    /// Account `id` now lives at `server` (reviewed with `reviewedChainPEM`); with `needsLogin`,
    /// its credentials stayed behind (tokens belong to the old server). Its client certificate and
    /// access headers, given for the old origin, are not carried over. Audited.
    @discardableResult
    public func move(id: String, to server: String, reviewedChainPEM: String?, needsLogin: Bool, at time: Date = Date()) throws -> Account {
        try database.write { db in
            guard var account = try Account.fetchOne(db, key: .text(id)) else { throw StoreError(.notFound, "No account with id \(id).") }
            if try Account.fetchFirst(db, where: "server = ? AND user = ? AND id != ?", [.text(server), .text(account.user), .text(id)]) != nil {
                throw StoreError(.invalid, "\(account.user) on \(server) is already an account.")
            }
            let old = account.server
            account.server = server
            account.reviewedChainPEM = reviewedChainPEM
            // A client certificate and access headers were given for the old origin: they are
            // not carried to another one (their secrets stay with the old server's keyring name).
            account.clientCertificatePEM = nil
            account.accessHeaderNames = nil
            if needsLogin {
                account.needsLogin = true
                account.tokenExpiresAt = nil
            }
            try account.update(db)
            var event = AuditEvent(time: time, kind: .accountMoved, target: server, detail: "\(account.user): from \(old)")
            try event.insert(db)
            return account
        }
    }

    /// Account `id` was logged out: its secrets (`removed`, kinds) left the keyring; it needs a
    /// login before it is used again. Audited.
    @discardableResult
    public func logOut(id: String, removed: [String], at time: Date = Date()) throws -> Account {
        try database.write { db in
            guard var account = try Account.fetchOne(db, key: .text(id)) else { throw StoreError(.notFound, "No account with id \(id).") }
            account.needsLogin = true
            account.tokenExpiresAt = nil
            try account.update(db)
            var event = AuditEvent(
                time: time, kind: .accountLoggedOut, target: account.server,
                detail: "\(account.user): " + (removed.isEmpty ? "no secret was in the keyring" : "removed " + removed.joined(separator: ", ")))
            try event.insert(db)
            return account
        }
    }

    /// The pending account `id` is complete: its secrets are kept.
    public func complete(id: String) throws {
        try database.write { db in
            try db.execute("UPDATE account SET pendingSince = NULL WHERE id = ?", [.text(id)])
        }
    }

    /// Rows still pending since before `time`: setups interrupted (a crash, a kill).
    public func pending(before time: Date) throws -> [Account] {
        try database.read { db in try Account.fetchAll(db, where: "pendingSince IS NOT NULL AND pendingSince < ?", [SQLiteValue(time)]) }
    }
}
