import FoundationEssentials

/// A value as SQLite stores it: what a statement binds and a row's column holds.
enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    init(_ text: String?) { self = text.map(SQLiteValue.text) ?? .null }
    init(_ number: Int) { self = .integer(Int64(number)) }
    init(_ number: Int64?) { self = number.map(SQLiteValue.integer) ?? .null }
    init(_ flag: Bool) { self = .integer(flag ? 1 : 0) }
    init(_ date: Date?) { self = date.map { .text(StoredDate.text(of: $0)) } ?? .null }
    init(_ data: Data?) { self = data.map { .blob(Array($0)) } ?? .null }
}
