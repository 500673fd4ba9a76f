/// Replaces the private sections of a ``PrivacyMessage`` text.
public enum LogMasker {
    /// What a private value becomes when masked without a hash.
    public static let privateText = "«private»"

    /// With `enabled`, private sections become `«private»` or `«private:hash»`; without, the
    /// markers are removed and the values shown.
    public static func mask(_ marked: String, enabled: Bool, hasher: LogHasher) -> String {
        // Markers are U+E000, U+E001 (start) and U+E002 (end): EE 80 80, EE 80 81, EE 80 82.
        var text = marked
        return text.withUTF8 { bytes -> String in
            guard bytes.contains(0xEE) else { return marked }
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            var sectionStart: Int?
            var hashed = false
            var index = 0
            while index < bytes.count {
                if bytes[index] == 0xEE, index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] <= 0x82, bytes[index + 2] >= 0x80 {
                    let kind = bytes[index + 2]
                    if kind == 0x82 {
                        if let start = sectionStart {
                            let value = UnsafeBufferPointer(rebasing: bytes[start..<index])
                            append(value, to: &output, enabled: enabled, hashed: hashed, hasher: hasher)
                        }
                        sectionStart = nil
                    } else if sectionStart == nil {
                        sectionStart = index + 3
                        hashed = kind == 0x81
                    }
                    index += 3
                    continue
                }
                if sectionStart == nil { output.append(bytes[index]) }
                index += 1
            }
            if let start = sectionStart {  // an unterminated section is still private
                append(UnsafeBufferPointer(rebasing: bytes[start...]), to: &output, enabled: enabled, hashed: false, hasher: hasher)
            }
            return String(decoding: output, as: UTF8.self)
        }
    }

    private static func append(_ value: UnsafeBufferPointer<UInt8>, to output: inout [UInt8], enabled: Bool, hashed: Bool, hasher: LogHasher) {
        if !enabled {
            output.append(contentsOf: value)
        } else if hashed {
            output.append(contentsOf: "«private:\(hasher.hash(String(decoding: value, as: UTF8.self)))»".utf8)
        } else {
            output.append(contentsOf: privateText.utf8)
        }
    }
}
