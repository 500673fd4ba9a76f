/// Replaces the private sections of a ``PrivacyMessage`` text.
public enum LogMasker {
    public static let privateText = "«private»"

    /// With `enabled`, private sections become `«private»` or `«private:hash»`; without, the
    /// markers are removed and the values shown.
    public static func mask(_ marked: String, enabled: Bool, hasher: LogHasher) -> String {
        // Fast path: no marker at all.
        guard marked.utf8.contains(0xEE) else { return marked }
        var output = ""
        output.reserveCapacity(marked.utf8.count)
        var section: String.UnicodeScalarView?
        var hashed = false
        for scalar in marked.unicodeScalars {
            switch scalar.value {
            case 0xE000, 0xE001:
                section = String.UnicodeScalarView()
                hashed = scalar.value == 0xE001
            case 0xE002:
                if let value = section {
                    let text = String(value)
                    output += !enabled ? text : hashed ? "«private:\(hasher.hash(text))»" : privateText
                }
                section = nil
            default:
                if section != nil { section!.append(scalar) } else { output.unicodeScalars.append(scalar) }
            }
        }
        if let value = section {  // an unterminated section is still private
            output += enabled ? privateText : String(value)
        }
        return output
    }
}
