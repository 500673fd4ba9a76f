import CSQLite

/// The database's schema, made by migrations applied once each, in order, each in its own
/// transaction. The applied ones are named in `grdb_migrations`, the table and the names GRDB
/// kept when Vigil used it: databases made then open and migrate as before. The SQL is what
/// GRDB generated for the same definitions (`sqlite3 FILE .schema` shows it).
enum SchemaMigrations {
    static let all: [(identifier: String, sql: String)] = [
        (
            "v1: approved certificates and audit",
            """
            CREATE TABLE "approved_certificate" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "host" TEXT NOT NULL, "port" INTEGER NOT NULL, \
            "sha256" TEXT NOT NULL, "spkiSHA256" TEXT NOT NULL, "subject" TEXT NOT NULL, "issuer" TEXT NOT NULL, "notAfter" TEXT NOT NULL, \
            "approvedAt" DATETIME NOT NULL, "note" TEXT, "revokedAt" DATETIME, "revocationReason" TEXT);
            CREATE UNIQUE INDEX "approved_certificate_active" ON "approved_certificate"("host", "port", "sha256") WHERE "revokedAt" IS NULL;
            CREATE TABLE "audit_event" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "time" DATETIME NOT NULL, "kind" TEXT NOT NULL, \
            "target" TEXT NOT NULL, "detail" TEXT NOT NULL);
            """
        ),
        (
            "v2: accounts",
            """
            CREATE TABLE "account" ("id" TEXT PRIMARY KEY NOT NULL, "server" TEXT NOT NULL, "user" TEXT NOT NULL, "method" TEXT NOT NULL, \
            "createdAt" DATETIME NOT NULL, UNIQUE ("server", "user"));
            """
        ),
        (
            "v3: the reviewed certificate, and who acted",
            #"ALTER TABLE "approved_certificate" ADD COLUMN "der" BLOB; ALTER TABLE "audit_event" ADD COLUMN "actor" TEXT;"#
        ),
        ("v4: the chain an account was set up with", #"ALTER TABLE "account" ADD COLUMN "reviewedChainPEM" TEXT;"#),
        (
            "v5: tokens over time",
            """
            ALTER TABLE "account" ADD COLUMN "clientID" TEXT; ALTER TABLE "account" ADD COLUMN "tokenEndpoint" TEXT;
            ALTER TABLE "account" ADD COLUMN "revocationEndpoint" TEXT; ALTER TABLE "account" ADD COLUMN "tokenExpiresAt" DATETIME;
            ALTER TABLE "account" ADD COLUMN "needsLogin" BOOLEAN NOT NULL DEFAULT 0;
            """
        ),
        ("v6: accounts pending until their secrets are kept", #"ALTER TABLE "account" ADD COLUMN "pendingSince" DATETIME;"#),
        (
            "v7: account labels",
            #"ALTER TABLE "account" ADD COLUMN "label" TEXT; CREATE UNIQUE INDEX "account_label" ON "account"("label");"#
        ),
        (
            "v8: the identity an OpenID Connect account logs in as",
            #"ALTER TABLE "account" ADD COLUMN "issuer" TEXT; ALTER TABLE "account" ADD COLUMN "subject" TEXT;"#
        ),
        ("v9: an account's client certificate", #"ALTER TABLE "account" ADD COLUMN "clientCertificatePEM" TEXT;"#),
        ("v10: an account's access headers", #"ALTER TABLE "account" ADD COLUMN "accessHeaderNames" TEXT;"#),
        (
            "v11: a token refresh under way, and accounts without a refresh token",
            #"ALTER TABLE "account" ADD COLUMN "refreshStartedAt" DATETIME; ALTER TABLE "account" ADD COLUMN "noRefreshToken" BOOLEAN NOT NULL DEFAULT 0;"#
        ),
        ("v12: the CA certificates an account was set up to trust", #"ALTER TABLE "account" ADD COLUMN "trustAnchorsPEM" TEXT;"#),
    ]

    /// Applies the migrations `connection`'s database has not had. A database that has every one
    /// is only read (no write lock taken), so that a command that only reads never waits.
    static func migrate(_ connection: SQLiteConnection) throws {
        if try applied(connection).isSuperset(of: all.map(\.identifier)) { return }
        try connection.transaction(writing: true) {
            try connection.execute("CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        }
        for migration in all {
            // Read again inside the transaction: another process may have applied it meanwhile.
            try connection.transaction(writing: true) {
                guard try !applied(connection).contains(migration.identifier) else { return }
                try connection.execute(migration.sql)
                try connection.execute("INSERT INTO grdb_migrations (identifier) VALUES (?)", [.text(migration.identifier)])
            }
        }
    }

    /// The identifiers of the migrations applied (none in a new file).
    static func applied(_ connection: SQLiteConnection) throws -> Set<String> {
        let exists = try connection.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'")
        guard try exists.step() else { return [] }
        var identifiers: Set<String> = []
        try connection.prepare("SELECT identifier FROM grdb_migrations").forEachRow { row in
            identifiers.insert(try row.string(0))
        }
        return identifiers
    }
}
