import Testing
import VigilPaths
import VigilText

/// The text helpers that replace Foundation's (the client links FoundationEssentials only):
/// each against what Foundation did, on the inputs Vigil meets, hostile ones included.
@Suite("Text without Foundation")
struct TextTests {
    @Test func percentEncodingKeepsWhatIsAllowedAndEncodesTheRest() {
        #expect(PercentEncoding.encode("a b/c?d#é~", allowing: PercentEncoding.isUnreserved) == "a%20b%2Fc%3Fd%23%C3%A9~")
        #expect(PercentEncoding.encode("alice@example.com/x", allowing: PercentEncoding.isPathSegmentCharacter) == "alice@example.com%2Fx")
        #expect(PercentEncoding.encode("alice;x", allowing: PercentEncoding.isPathSegmentCharacter) == "alice%3Bx", "servers read ; as path parameters")
        #expect(PercentEncoding.encode("https://x", allowing: PercentEncoding.isAlphanumeric) == "https%3A%2F%2Fx")
    }

    @Test func percentDecodingRefusesWhatFoundationRefused() {
        #expect(PercentEncoding.decode("a%20b%2fc%C3%A9") == "a b/cé")
        #expect(PercentEncoding.decode("plain") == "plain")
        for broken in ["%", "%2", "%zz", "%FF", "a%C3", "%%41"] {
            #expect(PercentEncoding.decode(broken) == nil, "\(broken)")
        }
    }

    /// A CRLF line end is a line end (Swift holds CR LF as one Character, so splitting on "\n"
    /// alone keeps a Windows file whole); a lone CR is kept for the caller to judge.
    @Test func linesEndAtLineFeedOrCarriageReturnLineFeed() {
        #expect(TextLines.split("a\r\nb\nc").map(String.init) == ["a", "b", "c"])
        #expect(TextLines.split("a\r\n\r\nb\r\n").map(String.init) == ["a", "", "b", ""])
        #expect(TextLines.split("a\r\n\r\nb\r\n", omittingEmpty: true).map(String.init) == ["a", "b"])
        #expect(TextLines.split("a\rb\n").map(String.init) == ["a\rb", ""], "a lone CR is not a line end")
        #expect(TextLines.first(of: "1234\r\nrest") == "1234")
        #expect(TextLines.first(of: "1234") == "1234")
        #expect(TextLines.first(of: "") == "")
    }

    @Test func trimmingAndPadding() {
        #expect(" \t a b \t".trimmingSpaces() == "a b")
        #expect("\n a \r\n".trimmingWhitespace() == "a")
        // The byte path and the Character path agree: Unicode white space, a mark joined to a
        // space, a space joined to a prepended character, text that is all white space.
        for text in ["\u{00A0}a\u{2003}", " \u{301}x ", "x \u{301}", "\u{0600} ", " \t\r\n", "", "\r\nab\u{0301}\r\n", " é "] {
            #expect(text.trimmingWhitespace() == text.trimming { $0.isWhitespace }, "\(Array(text.unicodeScalars))")
            #expect(text[...].trimmingWhitespace() == text.trimming { $0.isWhitespace })
        }
        #expect("\n a \n".trimmingSpaces() == "\n a \n")
        #expect("[::1]".trimming(charactersIn: "[]") == "::1")
        #expect("\"\"".trimming(charactersIn: "\"") == "")
        #expect("ab".padded(to: 4) == "ab  " && "abcdef".padded(to: 4) == "abcdef")
        #expect(UInt8(10).hex(digits: 2) == "0a" && UInt32(0x1f).hex(digits: 4) == "001f")
    }

    @Test func jsonValuesKeepTheirKinds() throws {
        let object = try #require(JSONValue.parseObject(Array(#"{"a": true, "b": 1, "c": "x", "d": [1, "y"], "e": null, "f": 1.5}"#.utf8)))
        #expect(object["a"]?.bool == true && object["a"]?.int == nil)
        #expect(object["b"]?.int == 1 && object["b"]?.bool == nil && object["f"]?.int == nil && object["f"]?.number == 1.5)
        #expect(object["c"]?.string == "x" && object["d"]?.array?.count == 2 && object["d"]?.strings == nil && object["e"] == .null)
        #expect(JSONValue.parseObject(Array("[1]".utf8)) == nil && JSONValue.parse(Array("nope".utf8)) == nil)
        #expect(String(decoding: JSONValue.object(["b": .number(2), "a": .string("x/y")]).encoded(), as: UTF8.self) == #"{"a":"x/y","b":2}"#)
    }

    @Test func jsonSyntaxErrorsNameTheirLineAndColumn() {
        #expect(JSONSyntax.problem(in: Array(#"{"a": [1, 2], "b": {"c": null}}"#.utf8)) == nil)
        let cases: [(String, Int, Int, String)] = [
            ("{\n  \"a\": 1,\n  \"b\": x\n}", 3, 8, "expected a value"), ("{\"a\": 1,}", 1, 9, "member name"), ("[1, 2", 1, 6, "unexpected end"),
            ("{\"a\" 1}", 1, 6, "expected :"), ("\"\\q\"", 1, 3, "unknown escape"), ("01", 1, 2, "after the value"), ("", 1, 1, "expected a value"),
        ]
        for (text, line, column, words) in cases {
            let problem = JSONSyntax.problem(in: Array(text.utf8))
            #expect(problem?.line == line && problem?.column == column, "\(text): \(String(describing: problem))")
            #expect(problem?.description.contains(words) == true, "\(text): \(String(describing: problem))")
        }
        #expect(JSONSyntax.problem(in: Array(String(repeating: "[", count: 10_000).utf8))?.reason == "nested too deeply")
    }

    @Test func pathNamesAsNSStringGaveThem() {
        #expect(PathName.directory(of: "/a/b/c") == "/a/b" && PathName.directory(of: "/a") == "/" && PathName.directory(of: "c") == "")
        #expect(PathName.directory(of: "/a/b/") == "/a" && PathName.directory(of: "a/b") == "a")
        #expect(PathName.lastComponent(of: "/a/b/c") == "c" && PathName.lastComponent(of: "/a/b/") == "b" && PathName.lastComponent(of: "/") == "/")
        #expect(PathName.join("/a", "b") == "/a/b" && PathName.join("/a/", "b") == "/a/b" && PathName.join("", "b") == "b")
        #expect(PathName.normalized("/a/./b/../c//d") == "/a/c/d" && PathName.normalized("../x") == "../x" && PathName.normalized("/..") == "/")
    }
}
