import CSQLite

/// A value VigilStore keeps in a table of its own, one column per stored property: embedders get
/// `Account`, `ApprovedCertificate` and `AuditEvent` as plain values; how they map to rows is
/// this module's business. The first column is the primary key.
protocol StoredValue: Sendable {
    static var databaseTableName: String { get }
    /// The table's columns, the primary key first, in the order of ``values`` and of the rows
    /// ``init(row:)`` reads.
    static var columns: [String] { get }
    /// The value from a row of ``columns`` (in that order).
    init(row: StoredRow) throws
    /// The value's columns, in the order of ``columns``.
    var values: [SQLiteValue] { get }
    /// The rowid SQLite gave an inserted row (tables with an integer primary key keep it).
    mutating func didInsert(rowID: Int64)
}

extension StoredValue {
    mutating func didInsert(rowID: Int64) {}

    static var selection: String { "SELECT " + columns.map { "\"\($0)\"" }.joined(separator: ", ") + " FROM \"\(databaseTableName)\"" }

    /// The rows `condition` (SQL, `?` for each of `arguments`) selects, in `order`.
    static func fetchAll(_ db: SQLiteConnection, where condition: String? = nil, _ arguments: [SQLiteValue] = [], orderBy order: String? = nil) throws
        -> [Self]
    {
        let sql = selection + (condition.map { " WHERE " + $0 } ?? "") + (order.map { " ORDER BY " + $0 } ?? "")
        let statement = try db.prepare(sql)
        try statement.bind(arguments)
        var result: [Self] = []
        try statement.forEachRow { row in result.append(try Self(row: row)) }
        return result
    }

    /// The first row `condition` selects.
    static func fetchFirst(_ db: SQLiteConnection, where condition: String, _ arguments: [SQLiteValue] = []) throws -> Self? {
        try fetchAll(db, where: condition + " LIMIT 1", arguments).first
    }

    /// The row whose primary key is `key`.
    static func fetchOne(_ db: SQLiteConnection, key: SQLiteValue) throws -> Self? {
        try fetchFirst(db, where: "\"\(columns[0])\" = ?", [key])
    }

    /// Inserts the value (its id, for an integer key left nil, set from the new row).
    mutating func insert(_ db: SQLiteConnection) throws {
        let names = Self.columns.map { "\"\($0)\"" }.joined(separator: ", ")
        let marks = Array(repeating: "?", count: Self.columns.count).joined(separator: ", ")
        try db.execute("INSERT INTO \"\(Self.databaseTableName)\" (\(names)) VALUES (\(marks))", values)
        didInsert(rowID: db.lastInsertedRowID)
    }

    /// Writes every column but the key over the value's row.
    func update(_ db: SQLiteConnection) throws {
        let assignments = Self.columns.dropFirst().map { "\"\($0)\" = ?" }.joined(separator: ", ")
        let values = values
        try db.execute(
            "UPDATE \"\(Self.databaseTableName)\" SET \(assignments) WHERE \"\(Self.columns[0])\" = ?", Array(values.dropFirst()) + [values[0]])
    }

    /// Deletes the value's row; false when there was none.
    @discardableResult
    func delete(_ db: SQLiteConnection) throws -> Bool {
        try db.execute("DELETE FROM \"\(Self.databaseTableName)\" WHERE \"\(Self.columns[0])\" = ?", [values[0]])
        return sqlite3_changes(db.handle) > 0
    }
}
