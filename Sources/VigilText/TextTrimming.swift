/// Trimming without Foundation's `CharacterSet`: what Vigil trims is spaces, line ends and a few
/// named characters.
extension StringProtocol {
    /// The text without spaces and tabs (Unicode white space other than line ends) at either end.
    public func trimmingSpaces() -> String { trimming { $0.isWhitespace && !$0.isNewline } }

    /// The text without white space or line ends at either end.
    public func trimmingWhitespace() -> String { trimming { $0.isWhitespace } }

    /// The text without any of `characters` at either end.
    public func trimming(charactersIn characters: String) -> String { trimming { characters.contains($0) } }

    /// The text without characters that satisfy `drop` at either end.
    public func trimming(where drop: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !drop($0) }), let last = lastIndex(where: { !drop($0) }) else { return "" }
        return String(self[first...last])
    }

    /// The text padded with spaces at its end to `width` characters (unchanged when longer).
    public func padded(to width: Int) -> String {
        count >= width ? String(self) : String(self) + String(repeating: " ", count: width - count)
    }
}

extension BinaryInteger {
    /// The value in lowercase hexadecimal, zero-padded to `digits` digits.
    public func hex(digits: Int) -> String {
        let text = String(self, radix: 16)
        return text.count >= digits ? text : String(repeating: "0", count: digits - text.count) + text
    }
}
