/// A last line of defence on every written line: credentials that reached the text by mistake
/// (a bearer token, a JWT, `password=...`) are replaced by `[redacted]`. It is applied whatever
/// the privacy-mask setting: secrets are never written.
public enum SecretScrubber {
    /// Words after which free text carries a secret (`password=...`, `"token": "..."`). Narrower than
    /// ``HTTPLogRedactor/secretParameters`` on purpose: that list matches exact keys, so it can
    /// hold `code`, `state` or `nonce`; here they would redact ordinary text ("error code: 5").
    static let keyWords = [
        "password", "passwd", "secret", "token", "code_verifier", "client_secret", "access_token", "refresh_token", "id_token", "authorization", "api_key",
        "apikey",
    ]

    /// `line` with JWTs, `Bearer`/`Basic` credentials and values after secret key words replaced by `[redacted]`.
    public static func scrub(_ line: String) -> String {
        // Cheap byte-level checks first: most lines hold nothing that could be a credential.
        var copy = line
        let (mayHaveJWT, mayHaveKeyword) = copy.withUTF8 { bytes in
            (containsJWTStart(bytes), containsTrigger(bytes))
        }
        guard mayHaveJWT || mayHaveKeyword else { return line }
        var result = line
        if mayHaveJWT { result = redactJWTs(result) }
        if mayHaveKeyword { result = redactAssignments(result) }
        return result
    }

    /// Lower-case ASCII byte strings whose presence sends a line to the slow path: every key word
    /// contains one of them ("passw" is in password and passwd, "token" in every token, "secret" in
    /// client_secret), so a line with a key word always takes it; a line with only the trigger
    /// takes it for nothing.
    static let triggers: [[UInt8]] = ["passw", "secret", "token", "code_verifier", "authorization", "api_key", "apikey", "bearer ", "basic "].map {
        Array($0.utf8)
    }

    /// The triggers by their first byte, so that a line is scanned once, not once per trigger.
    static let triggersByFirstByte: [[[UInt8]]] = {
        var table = [[[UInt8]]](repeating: [], count: 256)
        for trigger in triggers { table[Int(trigger[0])].append(trigger) }
        return table
    }()

    /// True when one of ``triggers`` occurs in `bytes`, ignoring ASCII case: one pass.
    static func containsTrigger(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let byFirstByte = triggersByFirstByte
        var index = 0
        while index < bytes.count {
            let first = Int(lowercase(bytes[index]))
            if !byFirstByte[first].isEmpty {
                for trigger in byFirstByte[first] where bytes.count - index >= trigger.count {
                    var matched = 1
                    while matched < trigger.count, lowercase(bytes[index + matched]) == trigger[matched] { matched += 1 }
                    if matched == trigger.count { return true }
                }
            }
            index += 1
        }
        return false
    }

    @inline(__always) static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    static func containsJWTStart(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        var previous: UInt8 = 0, before: UInt8 = 0
        for byte in utf8 {
            if before == UInt8(ascii: "e"), previous == UInt8(ascii: "y"), byte == UInt8(ascii: "J") { return true }
            before = previous
            previous = byte
        }
        return false
    }

    static func isTokenCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_" || c == "." || c == "=" || c == "+" || c == "/" || c == "~")
    }

    /// JWTs (`eyJ...`): three base64url parts.
    static func redactJWTs(_ text: String) -> String {
        var output = ""
        var index = text.startIndex
        while index < text.endIndex {
            if text[index...].hasPrefix("eyJ") {
                var end = index
                var dots = 0
                while end < text.endIndex, isTokenCharacter(text[end]) {
                    if text[end] == "." { dots += 1 }
                    end = text.index(after: end)
                }
                if dots >= 2 {
                    output += "[redacted]"
                    index = end
                    continue
                }
            }
            output.append(text[index])
            index = text.index(after: index)
        }
        return output
    }

    /// ``keyWords`` and the two schemes as characters (their counts known), and the characters
    /// any of them starts with: a position whose character is none of those is copied at once.
    static let keyWordCharacters: [(word: String, characters: [Character])] = keyWords.map { ($0, Array($0)) }
    static let schemeCharacters: [[Character]] = [Array("bearer "), Array("basic ")]
    static let firstCharacters: Set<Character> = Set(keyWords.compactMap(\.first) + ["b"])

    /// `Bearer X`, `Basic X`, and `key=X` / `key: X` / `"key": "X"` for the secret key words.
    static func redactAssignments(_ text: String) -> String {
        var output = ""
        let lowered = Array(text.lowercased())
        let characters = Array(text)
        var position = 0
        while position < characters.count {
            // No key word or scheme starts here: the character as it is.
            guard position < lowered.count, firstCharacters.contains(lowered[position]) else {
                output.append(characters[position])
                position += 1
                continue
            }
            var matched = false
            for scheme in schemeCharacters where matchesWord(lowered, at: position, scheme) {
                output += String(characters[position..<position + scheme.count])
                position += scheme.count
                let start = position
                while position < characters.count, isTokenCharacter(characters[position]) { position += 1 }
                if position > start { output += "[redacted]" }
                matched = true
                break
            }
            if matched { continue }
            for (word, wordCharacters) in keyWordCharacters where matchesWord(lowered, at: position, wordCharacters) {
                var cursor = position + wordCharacters.count
                // Separator: optional quote, then = or :, then optional spaces and quote.
                if cursor < characters.count, characters[cursor] == "\"" { cursor += 1 }
                guard cursor < characters.count, characters[cursor] == "=" || characters[cursor] == ":" else { continue }
                cursor += 1
                while cursor < characters.count, characters[cursor] == " " { cursor += 1 }
                var quoted = false
                if cursor < characters.count, characters[cursor] == "\"" {
                    quoted = true
                    cursor += 1
                }
                var valueStart = cursor
                if word == "authorization", !quoted {
                    // "Authorization: Scheme credentials": keep the scheme, redact the credentials.
                    var schemeEnd = cursor
                    while schemeEnd < characters.count, characters[schemeEnd].isLetter { schemeEnd += 1 }
                    if schemeEnd > cursor, schemeEnd < characters.count, characters[schemeEnd] == " " {
                        valueStart = schemeEnd + 1
                        cursor = valueStart
                    }
                }
                if quoted {
                    while cursor < characters.count, characters[cursor] != "\"" { cursor += 1 }
                } else {
                    while cursor < characters.count,
                        !(characters[cursor] == "&" || characters[cursor] == "," || characters[cursor] == ";" || characters[cursor].isWhitespace)
                    { cursor += 1 }
                }
                if cursor > valueStart, String(characters[valueStart..<cursor]) != "[redacted]", !String(characters[valueStart..<cursor]).hasPrefix("«") {
                    output += String(characters[position..<valueStart]) + "[redacted]"
                    position = cursor
                    matched = true
                }
                break
            }
            if matched { continue }
            output.append(characters[position])
            position += 1
        }
        return output
    }

    /// `word` starts at `position` and is not the tail of a longer identifier.
    static func matchesWord(_ lowered: [Character], at position: Int, _ word: [Character]) -> Bool {
        guard position + word.count <= lowered.count else { return false }
        if position > 0 {
            let before = lowered[position - 1]
            if before.isLetter || before.isNumber { return false }
        }
        var i = position
        for c in word {
            if lowered[i] != c { return false }
            i += 1
        }
        return true
    }
}
