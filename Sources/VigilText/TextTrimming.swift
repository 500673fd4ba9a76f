/// Trimming without Foundation's `CharacterSet`: what Vigil trims is spaces, line ends and a few
/// named characters.
extension StringProtocol {
    /// The text without spaces and tabs (Unicode white space other than line ends) at either end.
    public func trimmingSpaces() -> String { trimming { $0.isWhitespace && !$0.isNewline } }

    /// The text without white space or line ends at either end.
    ///
    /// ASCII white space is cut as bytes; where a cut would stop at a byte beyond ASCII (Unicode
    /// white space, or a mark that joins the character before it) the text goes the way of
    /// Characters instead, so both ways give the same answer.
    public func trimmingWhitespace() -> String {
        func isText(_ byte: UInt8) -> Bool { byte != 0x20 && !(0x09...0x0D).contains(byte) }
        let cut = utf8.withContiguousStorageIfAvailable { bytes -> String? in
            guard let first = bytes.firstIndex(where: isText), let last = bytes.lastIndex(where: isText) else { return "" }
            guard bytes[first] < 0x80, bytes[last] < 0x80 else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[first...last]), as: UTF8.self)
        }
        if case .some(.some(let text)) = cut { return text }
        return trimming { $0.isWhitespace }
    }

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
