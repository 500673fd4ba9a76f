/// Cutting text to a byte budget on a character boundary.
enum Truncation {
    /// The longest prefix of `text` of at most `limit` UTF-8 bytes that ends on a scalar
    /// boundary, or nil when `text` fits (or `limit` is 0: no limit).
    static func prefix(of text: String, bytes limit: Int) -> String? {
        guard limit > 0, text.utf8.count > limit else { return nil }
        var end = text.utf8.index(text.utf8.startIndex, offsetBy: limit)
        while end > text.startIndex, end.samePosition(in: text.unicodeScalars) == nil {
            end = text.utf8.index(before: end)
        }
        return String(text[..<end])
    }
}
