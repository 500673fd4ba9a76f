import GRDB

/// A value VigilStore keeps in a table of its own: its Codable form is the table's columns. GRDB is
/// VigilStore's own business: embedders get `Account`, `ApprovedCertificate` and `AuditEvent` as
/// plain values, and GRDB reads and writes them through ``StoredRecord``, which no one else sees.
protocol StoredValue: Codable, Sendable {
    static var databaseTableName: String { get }
    /// The rowid SQLite gave an inserted row (tables with an integer primary key keep it).
    mutating func didInsert(rowID: Int64)
}

extension StoredValue {
    mutating func didInsert(rowID: Int64) {}

    /// The row whose primary key is `key`.
    static func fetchOne(_ db: Database, key: some DatabaseValueConvertible) throws -> Self? {
        try StoredRecord<Self>.fetchOne(db, key: key)?.value
    }

    /// A request for this table's rows (then `filter`, `order`, `fetchOne`, `fetchAll` as GRDB's).
    static var all: QueryInterfaceRequest<StoredRecord<Self>> { StoredRecord<Self>.all() }

    /// Inserts the value (its id, for an integer key, set from the new row).
    mutating func insert(_ db: Database) throws {
        var record = StoredRecord(self)
        try record.insert(db)
        self = record.value
    }

    func update(_ db: Database) throws { try StoredRecord(self).update(db) }

    @discardableResult
    func delete(_ db: Database) throws -> Bool { try StoredRecord(self).delete(db) }
}

/// A value as GRDB's record protocols take it: the same columns as the value's Codable form
/// (decoding and encoding are passed straight through), the value's table.
struct StoredRecord<Value: StoredValue>: Codable, FetchableRecord, MutablePersistableRecord {
    var value: Value

    init(_ value: Value) { self.value = value }

    init(from decoder: any Decoder) throws { value = try Value(from: decoder) }

    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }

    static var databaseTableName: String { Value.databaseTableName }

    mutating func didInsert(_ inserted: InsertionSuccess) { value.didInsert(rowID: inserted.rowID) }
}

extension QueryInterfaceRequest {
    /// The first value the request selects.
    func fetchValue<Value>(_ db: Database) throws -> Value? where RowDecoder == StoredRecord<Value> { try fetchOne(db)?.value }

    /// Every value the request selects, in its order.
    func fetchValues<Value>(_ db: Database) throws -> [Value] where RowDecoder == StoredRecord<Value> { try fetchAll(db).map(\.value) }
}
