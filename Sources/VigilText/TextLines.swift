/// The lines of a text file as people write them: a line ends at LF, or at CR LF as Windows
/// editors write it. Swift holds CR LF as one `Character`, so splitting a `String` on "\n" leaves
/// a CRLF file in one piece (its CRs then look like control characters in a value): split here
/// instead. A CR anywhere else stays in its line, for the caller to refuse.
public enum TextLines {
    /// The lines of `text`, without their line ends; a last line without one is kept.
    public static func split(_ text: String, omittingEmpty: Bool = false) -> [Substring] {
        text.split(omittingEmptySubsequences: omittingEmpty) { $0 == "\n" || $0 == "\r\n" }
    }

    /// The first line of `text`, without its line end ("" for an empty text).
    public static func first(of text: String) -> Substring {
        text.split(maxSplits: 1, omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }.first ?? ""
    }
}
