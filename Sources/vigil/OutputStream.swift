import FoundationEssentials
import Glibc
import VigilCommandLine
import VigilLogging
import VigilStore
import VigilText

/// Standard output through one buffer, written in 64 KiB blocks: a listing of 100,000 rows is
/// not 100,000 locked `print` calls. Call ``flush()`` at the end. The buffer is raw memory that
/// bytes are copied into (`memcpy`), not an array grown by a million appends.
struct BufferedOutput {
    static let capacity = 1 << 16

    /// The bytes not yet written; one per output (copies of a BufferedOutput share it).
    private final class Storage {
        let base = UnsafeMutablePointer<UInt8>.allocate(capacity: BufferedOutput.capacity)
        var count = 0
        deinit { base.deallocate() }
    }

    private let storage = Storage()

    init() {}

    mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { write(bytes: $0) }
    }

    mutating func line(_ text: String) {
        write(text)
        append(0x0A)
    }

    mutating func write(bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        if storage.count + bytes.count > Self.capacity { flush() }
        if bytes.count > Self.capacity { return Self.writeOut(bytes) }
        (storage.base + storage.count).update(from: source, count: bytes.count)
        storage.count += bytes.count
    }

    /// One byte.
    mutating func append(_ byte: UInt8) {
        if storage.count == Self.capacity { flush() }
        storage.base[storage.count] = byte
        storage.count += 1
    }

    /// A decimal number, its digits written straight into the buffer.
    mutating func write(_ number: Int64) {
        guard number != 0 else { return append(0x30) }
        // 20 digits and a sign at most.
        if storage.count + 21 > Self.capacity { flush() }
        if number < 0 { append(0x2D) }
        let start = storage.count
        var rest = number.magnitude
        while rest > 0 {
            storage.base[storage.count] = UInt8(48 + rest % 10)
            storage.count += 1
            rest /= 10
        }
        var digits = UnsafeMutableBufferPointer(start: storage.base + start, count: storage.count - start)
        digits.reverse()
    }

    /// A literal, copied without making a String.
    mutating func write(literal text: StaticString) {
        text.withUTF8Buffer { write(bytes: $0) }
    }

    /// Text from the store as ``SafeText/escaped(_:keepingLines:)`` writes it: printable ASCII as
    /// it is (the common case, copied), anything else through SafeText itself.
    mutating func escaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { write(bytes: bytes) } else { write(SafeText.escaped(String(decoding: bytes, as: UTF8.self))) }
    }

    /// Text from the store as the content of a JSON string, as ``JSONArrayStream/escaped(_:)``
    /// writes it.
    mutating func jsonEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x80 && $0 != 0x22 && $0 != 0x5C }) {
            write(bytes: bytes)
        } else {
            write(JSONArrayStream.escaped(String(decoding: bytes, as: UTF8.self)))
        }
    }

    /// A stored date as ``ISOTime/string(_:)`` writes it. The store keeps dates as
    /// `YYYY-MM-DD HH:MM:SS.SSS`: the text is rewritten in place (the second, floored, is the
    /// first 19 characters); a date stored otherwise is decoded and formatted.
    mutating func isoTime(_ row: StoredRow, _ column: Int32) {
        let text = row.text(column)
        if ISOTime.isStoredDate(text) {
            write(bytes: UnsafeBufferPointer(rebasing: text[0..<10]))
            append(0x54)  // T
            write(bytes: UnsafeBufferPointer(rebasing: text[11..<19]))
            append(0x5A)  // Z
        } else {
            write(row.date(column).map(ISOTime.string) ?? "")
        }
    }

    /// Writes what is buffered to file descriptor 1 (a closed pipe ends the writing quietly:
    /// SIGPIPE is ignored and the command's exit code says the rest).
    mutating func flush() {
        guard storage.count > 0 else { return }
        Self.writeOut(UnsafeBufferPointer(start: storage.base, count: storage.count))
        storage.count = 0
    }

    private static func writeOut(_ bytes: UnsafeBufferPointer<UInt8>) {
        StandardStream.write(UnsafeRawBufferPointer(bytes), to: STDOUT_FILENO)
    }
}

/// Objects written as JSONOutput writes them (pretty, keys sorted, slashes as they are, dates in
/// ISO 8601), one at a time into an array: the same bytes as `JSONOutput.text([…])`, streamed.
struct JSONArrayStream {
    private var count = 0
    private var fieldsInObject = 0

    /// An object written field by field (``string(_:_:_:into:)``, ``date(_:_:_:into:)``,
    /// ``integer(_:_:_:into:)``, in ascending key order), then ``endObject(into:)``.
    mutating func beginObject(into output: inout BufferedOutput) {
        output.write(count == 0 ? "[\n  {\n" : ",\n  {\n")
        count += 1
        fieldsInObject = 0
    }

    private mutating func key(_ key: String, into output: inout BufferedOutput) {
        output.write(fieldsInObject == 0 ? "    \"" : ",\n    \"")
        fieldsInObject += 1
        output.write(key)
        output.write("\" : ")
    }

    func endObject(into output: inout BufferedOutput) {
        output.write("\n  }")
    }

    /// A stored text column as a string field (left out when NULL).
    mutating func string(_ key: String, _ row: StoredRow, _ column: Int32, into output: inout BufferedOutput) {
        guard !row.isNull(column) else { return }
        self.key(key, into: &output)
        output.write(literal: "\"")
        output.jsonEscaped(row.text(column))
        output.write(literal: "\"")
    }

    /// A stored date column as an ISO 8601 string field (left out when NULL).
    mutating func date(_ key: String, _ row: StoredRow, _ column: Int32, into output: inout BufferedOutput) {
        guard !row.isNull(column) else { return }
        self.key(key, into: &output)
        output.write(literal: "\"")
        output.isoTime(row, column)
        output.write(literal: "\"")
    }

    /// A stored integer column as a number field (left out when NULL).
    mutating func integer(_ key: String, _ row: StoredRow, _ column: Int32, into output: inout BufferedOutput) {
        guard !row.isNull(column) else { return }
        self.key(key, into: &output)
        output.write(row.integer(column))
    }

    /// Closes the array (`[\n\n]` when empty, as JSONEncoder writes it).
    func finish(into output: inout BufferedOutput) {
        output.line(count == 0 ? "[\n\n]" : "\n]")
    }

    /// JSON string escaping as JSONEncoder does it with `.withoutEscapingSlashes`.
    static func escaped(_ text: String) -> String {
        let isPlain: (UInt8) -> Bool = { $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }
        if text.utf8.withContiguousStorageIfAvailable({ $0.allSatisfy(isPlain) }) ?? text.utf8.allSatisfy(isPlain) { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20: out += "\\u" + scalar.value.hex(digits: 4)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension ISOTime {
    /// `YYYY-MM-DD HH:MM:SS`, optionally followed by `.` and digits: how the store keeps a date.
    static func isStoredDate(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard text.count >= 19 else { return false }
        for index in 0..<19 {
            let byte = text[index]
            switch index {
            case 4, 7: guard byte == 0x2D else { return false }
            case 10: guard byte == 0x20 else { return false }
            case 13, 16: guard byte == 0x3A else { return false }
            default: guard byte >= 0x30 && byte <= 0x39 else { return false }
            }
        }
        // In range too: anything else (a 30 February, a 24th hour) is left to the store's date reader.
        let number = { (at: Int) in Int(text[at] - 0x30) * 10 + Int(text[at + 1] - 0x30) }
        guard (1...12).contains(number(5)), (1...31).contains(number(8)), number(11) < 24, number(14) < 60, number(17) < 60 else { return false }
        let day = number(8), month = number(5)
        if day > 30 && [4, 6, 9, 11].contains(month) { return false }
        if month == 2 {
            let year = Int(text[0] - 0x30) * 1000 + number(2) + Int(text[1] - 0x30) * 100
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            if day > (leap ? 29 : 28) { return false }
        }
        guard text.count > 19 else { return true }
        return text[19] == 0x2E && text.count > 20 && text[20...].allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}

/// ISO 8601 in UTC to the second (`2026-11-01T10:00:00Z`), as `Date.formatted(.iso8601)` and
/// JSONEncoder's `.iso8601` write it, computed from the day number (no formatter, no calendar).
enum ISOTime {
    static func string(_ date: Date) -> String {
        let seconds = Int64(floor(date.timeIntervalSince1970))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let second = Int(seconds - days * 86_400)
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * mp + 2) / 5 + 1)
        let month = Int(mp < 10 ? mp + 3 : mp - 9)
        let year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        guard (0...9999).contains(year) else { return date.formatted(.iso8601) }
        var bytes: [UInt8] = Array("0000-00-00T00:00:00Z".utf8)
        func put(_ value: Int, at index: Int, width: Int) {
            var value = value
            for offset in stride(from: width - 1, through: 0, by: -1) {
                bytes[index + offset] = UInt8(48 + value % 10)
                value /= 10
            }
        }
        put(year, at: 0, width: 4)
        put(month, at: 5, width: 2)
        put(day, at: 8, width: 2)
        put(second / 3600, at: 11, width: 2)
        put(second % 3600 / 60, at: 14, width: 2)
        put(second % 60, at: 17, width: 2)
        return String(decoding: bytes, as: UTF8.self)
    }
}
