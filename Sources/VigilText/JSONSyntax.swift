/// Where a JSON text is broken, for a message a person can act on ("line 3, column 7: expected
/// a value"): FoundationEssentials' `JSONDecoder` says only that the data is not valid JSON.
/// A strict RFC 8259 scanner; it checks the syntax and builds nothing.
public struct JSONSyntax {
    /// The first syntax error: the 1-based line and column (in bytes) and what was expected.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        /// The 1-based line of the error.
        public let line: Int
        /// The 1-based column of the error, counted in bytes.
        public let column: Int
        /// What was expected or found, in words.
        public let reason: String
        /// `line L, column C: reason`.
        public var description: String { "line \(line), column \(column): \(reason)" }
    }

    let bytes: [UInt8]
    var index = 0

    /// The first syntax error in `bytes`; nil when they are one JSON value.
    public static func problem(in bytes: some Collection<UInt8>) -> Problem? {
        var scanner = JSONSyntax(bytes: Array(bytes))
        do throws(Problem) {
            scanner.skipSpace()
            try scanner.value(depth: 0)
            scanner.skipSpace()
            if scanner.index < scanner.bytes.count { throw scanner.failure("unexpected text after the value") }
            return nil
        } catch {
            return error
        }
    }

    func failure(_ reason: String) -> Problem {
        let end = min(index, bytes.count)
        let before = bytes[..<end]
        let line = before.filter { $0 == 0x0a }.count + 1
        let column = end - (before.lastIndex(of: 0x0a).map { $0 + 1 } ?? 0) + 1
        return Problem(line: line, column: column, reason: index >= bytes.count ? "unexpected end of the text (\(reason))" : reason)
    }

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x0a, 0x0d, 0x09].contains(bytes[index]) { index += 1 }
    }

    mutating func expect(_ byte: UInt8, _ reason: String) throws(Problem) {
        guard index < bytes.count, bytes[index] == byte else { throw failure(reason) }
        index += 1
    }

    mutating func value(depth: Int) throws(Problem) {
        guard depth < 512 else { throw failure("nested too deeply") }
        guard index < bytes.count else { throw failure("expected a value") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            try elements(closing: UInt8(ascii: "}"), what: "member") { scanner throws(Problem) in
                guard scanner.index < scanner.bytes.count, scanner.bytes[scanner.index] == UInt8(ascii: "\"") else {
                    throw scanner.failure("expected a member name in double quotes")
                }
                try scanner.string()
                scanner.skipSpace()
                try scanner.expect(UInt8(ascii: ":"), "expected : after the member name")
                scanner.skipSpace()
                try scanner.value(depth: depth + 1)
            }
        case UInt8(ascii: "["):
            try elements(closing: UInt8(ascii: "]"), what: "element") { scanner throws(Problem) in try scanner.value(depth: depth + 1) }
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try word("true")
        case UInt8(ascii: "f"): try word("false")
        case UInt8(ascii: "n"): try word("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw failure("expected a value")
        }
    }

    /// An object's members or an array's elements, from the opening bracket to `closing`.
    mutating func elements(closing: UInt8, what: String, _ element: (inout JSONSyntax) throws(Problem) -> Void) throws(Problem) {
        index += 1
        skipSpace()
        if index < bytes.count, bytes[index] == closing {
            index += 1
            return
        }
        while true {
            skipSpace()
            try element(&self)
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(closing, "expected , or \(Character(Unicode.Scalar(closing))) after the \(what)")
            return
        }
    }

    mutating func word(_ text: String) throws(Problem) {
        for byte in text.utf8 { try expect(byte, "expected \(text)") }
    }

    mutating func string() throws(Problem) {
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return
            }
            if byte < 0x20 { throw failure("a control character in a string (escape it)") }
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { break }
                if bytes[index] == UInt8(ascii: "u") {
                    for _ in 0..<4 {
                        index += 1
                        guard index < bytes.count, bytes[index].isHexDigit else { throw failure("expected four hex digits after \\u") }
                    }
                } else if !"\"\\/bfnrt".utf8.contains(bytes[index]) {
                    throw failure("an unknown escape in a string")
                }
            }
            index += 1
        }
        throw failure("a string without its closing double quote")
    }

    mutating func number() throws(Problem) {
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, bytes[index].isDigit else { throw failure("expected a digit") }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else { while index < bytes.count, bytes[index].isDigit { index += 1 } }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, bytes[index].isDigit else { throw failure("expected a digit after the decimal point") }
            while index < bytes.count, bytes[index].isDigit { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, bytes[index].isDigit else { throw failure("expected a digit in the exponent") }
            while index < bytes.count, bytes[index].isDigit { index += 1 }
        }
    }
}

extension UInt8 {
    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
    fileprivate var isHexDigit: Bool {
        isDigit || (self >= UInt8(ascii: "a") && self <= UInt8(ascii: "f")) || (self >= UInt8(ascii: "A") && self <= UInt8(ascii: "F"))
    }
}
