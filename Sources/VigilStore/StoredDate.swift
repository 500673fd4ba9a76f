import FoundationEssentials
import Glibc

/// Dates as the database keeps them: text `YYYY-MM-DD HH:MM:SS.SSS` in UTC, the format GRDB wrote
/// (databases made before Vigil used SQLite directly read the same), which sorts and compares as
/// text in SQL. Read back: that format, with or without seconds or milliseconds, `T` for the
/// space, a `Z` or `±HH:MM` zone, a date alone, or a number of seconds since 1970.
enum StoredDate {
    /// The dates the format holds: years 0001 to 9999. A date outside (a server's absurd
    /// `expires_in`) is stored as the nearest one it holds, never a crash, never five digits.
    static let earliest: TimeInterval = -62_135_596_800  // 0001-01-01 00:00:00 UTC
    static let latest: TimeInterval = 253_402_300_799.999  // 9999-12-31 23:59:59.999 UTC

    /// `date` as stored, to the nearest millisecond (a date read back is written as it was).
    static func text(of date: Date) -> String {
        let given = date.timeIntervalSince1970
        let interval = given.isNaN ? 0 : min(max(given, earliest), latest)
        var seconds = time_t(interval.rounded(.down))
        var milliseconds = Int(((interval - Double(seconds)) * 1000).rounded())
        if milliseconds >= 1000 {
            // 9999-12-31 23:59:59.9995 and later stay in the last millisecond of the range.
            if interval >= latest {
                milliseconds = 999
            } else {
                seconds += 1
                milliseconds -= 1000
            }
        }
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = Int(parts.tm_year) + 1900
        let yearText = String(repeating: "0", count: max(0, 4 - String(year).count)) + String(year)
        let millisecondText = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(yearText)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millisecondText)"
    }

    /// The date a column holds; nil for NULL or anything that is not a date.
    static func date(from value: SQLiteValue) -> Date? {
        switch value {
        case .integer(let seconds): return Date(timeIntervalSince1970: TimeInterval(seconds))
        case .real(let seconds): return Date(timeIntervalSince1970: seconds)
        case .text(let text): return date(from: Array(text.utf8))
        case .null, .blob: return nil
        }
    }

    /// The date stored text spells (UTF-8 bytes); nil when it spells none.
    static func date(from bytes: some Collection<UInt8>) -> Date? {
        var reader = Reader(bytes: Array(bytes))
        guard let year = reader.number(4), reader.skip("-"), let month = reader.number(2), reader.skip("-"), let day = reader.number(2),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var hour = 0, minute = 0, second = 0
        var fraction = 0.0
        var offset = 0
        if reader.skip(" ") || reader.skip("T") {
            guard let h = reader.number(2), reader.skip(":"), let m = reader.number(2), h < 24, m < 60 else { return nil }
            hour = h
            minute = m
            if reader.skip(":") {
                guard let s = reader.number(2), s <= 60 else { return nil }
                second = s
                if reader.skip(".") {
                    // Digits as one integer over one power of ten: 43.264 reads as 264/1000, not
                    // as 0.2 + 0.06 + 0.004 with three roundings.
                    var numerator = 0
                    var denominator = 1
                    while let digit = reader.digit() {
                        if denominator < 1_000_000_000 {
                            numerator = numerator * 10 + digit
                            denominator *= 10
                        }
                    }
                    guard denominator > 1 else { return nil }
                    fraction = Double(numerator) / Double(denominator)
                }
            }
            if !reader.skip("Z"), let sign = reader.sign() {
                guard let zoneHours = reader.number(2) else { return nil }
                _ = reader.skip(":")
                guard let zoneMinutes = reader.number(2) else { return nil }
                offset = sign * (zoneHours * 3600 + zoneMinutes * 60)
            }
        }
        guard reader.atEnd else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts) - offset) + fraction)
    }

    struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func skip(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
            index += 1
            return true
        }

        mutating func digit() -> Int? {
            guard index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") else { return nil }
            index += 1
            return Int(bytes[index - 1] - UInt8(ascii: "0"))
        }

        mutating func number(_ count: Int) -> Int? {
            var value = 0
            for _ in 0..<count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }

        mutating func sign() -> Int? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }
    }
}
