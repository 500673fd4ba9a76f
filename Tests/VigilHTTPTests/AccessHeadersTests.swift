import Testing

@testable import VigilHTTP

/// An access-headers file as administrators write it: LF or CRLF line ends (Windows editors),
/// comments, blank lines. A CR inside a value is still a control character and refused; the
/// error names the line, never the value.
@Suite("Access headers file")
struct AccessHeadersTests {
    static let fields = ["CF-Access-Client-Id: vigil-test.access", "CF-Access-Client-Secret: access-test-secret-3f9a1c"]

    @Test(arguments: ["\n", "\r\n"]) func lineEndsOfEitherKindAreLineEnds(_ end: String) throws {
        let text = (["# service token", ""] + Self.fields).joined(separator: end) + end
        let headers = try AccessHeaders.parse(text)
        #expect(headers.names == ["CF-Access-Client-Id", "CF-Access-Client-Secret"])
        let values = headers.withFields { $0.map(\.value) }
        #expect(values == ["vigil-test.access", "access-test-secret-3f9a1c"], "no CR left at a value's end")
    }

    @Test func aMixOfLineEndsAndNoLastLineEnd() throws {
        let headers = try AccessHeaders.parse(Self.fields[0] + "\r\n" + Self.fields[1])
        #expect(headers.withFields { $0.map(\.value) } == ["vigil-test.access", "access-test-secret-3f9a1c"])
    }

    @Test(arguments: ["X-Token: abc\rdef\n", "X-Token: abc\r\r\n", "X-Token: a\u{7F}b\n", "X-Token: a\tb\u{1B}[2J\n"])
    func aControlCharacterInsideAValueIsRefused(_ text: String) {
        #expect {
            try AccessHeaders.parse(text)
        } throws: { error in
            guard let error = error as? AccessHeadersError else { return false }
            return error.code == .malformed && error.description.contains("Line 1") && !error.description.contains("abc")
        }
    }
}
