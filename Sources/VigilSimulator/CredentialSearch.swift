import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Finds the secrets a server planted (passwords, their Basic form, tokens it issued) in bytes a
/// client sent, as sent and in the encodings a careless client uses: percent and form encoding,
/// JSON escapes, base64 and base64url (at any alignment), and hex, nested up to two deep
/// (base64 inside a percent-encoded query). Each secret is also looked for as UTF-16 and as its
/// MD5, SHA-1 and SHA-256 digests (a password-equivalent a careless client sends in place of the
/// password). A hit names the encoding it was found under.
struct CredentialSearch: Sendable {
    /// The secrets, as bytes; ones shorter than ``minimumLength`` are left out (they would match
    /// anything).
    let secrets: [[UInt8]]
    /// The same secrets in other forms, each with its name (`UTF-16`, `SHA-256`).
    let forms: [(name: String, bytes: [UInt8])]
    static let minimumLength = 6
    /// How many decodings deep a secret is looked for.
    static let depth = 2

    init(planted: [PlantedSecret]) {
        secrets = planted.map { Array($0.value.utf8) }.filter { $0.count >= Self.minimumLength }
        var forms: [(String, [UInt8])] = []
        for secret in secrets {
            let text = String(decoding: secret, as: UTF8.self)
            forms.append(("UTF-16", text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
            forms.append(("UTF-16", text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
            forms.append(("its MD5", Array(Insecure.MD5.hash(data: secret))))
            forms.append(("its SHA-1", Array(Insecure.SHA1.hash(data: secret))))
            forms.append(("its SHA-256", Array(SHA256.hash(data: secret))))
        }
        self.forms = forms
    }

    /// Where a secret is in a name (a TLS server name, a DNS name): as ``find(in:)`` finds it, or
    /// with the dots a name needs between labels taken out, or in another letter case (names are
    /// case-insensitive, and clients lower-case them).
    func findInName(_ bytes: [UInt8]) -> String? {
        if let how = find(in: bytes) { return how }
        let undotted = bytes.filter { $0 != UInt8(ascii: ".") }
        if undotted.count != bytes.count, let how = find(in: undotted) { return "split by dots, then \(how)" }
        func lowered(_ text: [UInt8]) -> [UInt8] { text.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 } }
        let lowerName = lowered(bytes), lowerUndotted = lowered(undotted)
        for secret in secrets.map(lowered) where Self.contains(lowerName, secret) || Self.contains(lowerUndotted, secret) {
            _ = secret
            return "in another letter case"
        }
        return nil
    }

    /// The encoding under which a secret is in `bytes` (`as sent`, `base64`, `percent-encoded,
    /// then base64`, `hex of its SHA-256`), or nil.
    func find(in bytes: [UInt8]) -> String? {
        guard !secrets.isEmpty, !bytes.isEmpty else { return nil }
        return search(bytes, depth: Self.depth, path: [])
    }

    private func search(_ bytes: [UInt8], depth: Int, path: [String]) -> String? {
        if secrets.contains(where: { Self.contains(bytes, $0) }) { return path.isEmpty ? "as sent" : path.joined(separator: ", then ") }
        if let form = forms.first(where: { Self.contains(bytes, $0.bytes) }) { return (path + [form.name]).joined(separator: " of ") }
        guard depth > 0 else { return nil }
        for (name, decoded) in Self.decodings(of: bytes) where decoded != bytes {
            if let hit = search(decoded, depth: depth - 1, path: path + [name]) { return hit }
        }
        return nil
    }

    /// Every decoding of `bytes` worth a look.
    static func decodings(of bytes: [UInt8]) -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        if bytes.contains(UInt8(ascii: "%")) || bytes.contains(UInt8(ascii: "+")) { out.append(("percent-encoded", percentDecoded(bytes))) }
        if bytes.contains(UInt8(ascii: "\\")) { out.append(("JSON-escaped", jsonUnescaped(bytes))) }
        // Base64 wrapped at 64 or 76 columns (MIME, PEM): the lines joined again.
        if bytes.contains(0x0A) { out.append(("line-wrapped", bytes.filter { $0 != 0x0A && $0 != 0x0D })) }
        for token in tokens(bytes, minimum: 8, where: isBase64) {
            for offset in 0..<4 where token.count - offset >= 8 {
                out.append(("base64", base64Decoded(token.dropFirst(offset))))
            }
        }
        for token in tokens(bytes, minimum: 12, where: isHex) {
            for offset in 0..<2 { out.append(("hex", hexDecoded(token.dropFirst(offset)))) }
        }
        return out
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard needle.count <= haystack.count else { return false }
        return haystack.withUnsafeBufferPointer { h in
            needle.withUnsafeBufferPointer { n in
                guard let base = h.baseAddress, let pattern = n.baseAddress else { return false }
                let last = h.count - n.count
                var start = 0
                while start <= last {
                    guard let hit = memchr(base + start, Int32(first), last - start + 1) else { return false }
                    let index = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                    if memcmp(base + index, pattern, n.count) == 0 { return true }
                    start = index + 1
                }
                return false
            }
        }
    }

    static func isBase64(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        case UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="): return true
        default: return false
        }
    }

    static func isHex(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): return true
        default: return false
        }
    }

    /// The maximal runs of bytes in the class, at least `minimum` long.
    static func tokens(_ bytes: [UInt8], minimum: Int, where member: (UInt8) -> Bool) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var start: Int?
        for index in bytes.indices {
            if member(bytes[index]) {
                if start == nil { start = index }
            } else if let first = start {
                if index - first >= minimum { out.append(bytes[first..<index]) }
                start = nil
            }
        }
        if let first = start, bytes.count - first >= minimum { out.append(bytes[first...]) }
        return out
    }

    static func value(ofHex byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `%XX` decoded and `+` as a space (form encoding); a bad escape stays as it is.
    static func percentDecoded(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = value(ofHex: bytes[index + 1]), let low = value(ofHex: bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
                continue
            }
            out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return out
    }

    /// JSON string escapes undone (`\"`, `\/`, `\n`, `\u0041`); other bytes as they are.
    static func jsonUnescaped(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                out.append(byte)
                index += 1
                continue
            }
            let next = bytes[index + 1]
            switch next {
            case UInt8(ascii: "u") where index + 5 < bytes.count:
                let digits = bytes[(index + 2)...(index + 5)].compactMap(value(ofHex:))
                if digits.count == 4 {
                    let scalar = digits.reduce(UInt32(0)) { $0 << 4 | UInt32($1) }
                    out += Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "?").utf8)
                    index += 6
                    continue
                }
                out.append(byte)
                index += 1
                continue
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            default: out.append(next)
            }
            index += 2
        }
        return out
    }

    /// Base64 or base64url, padding optional; a trailing partial group gives what it can.
    static func base64Decoded(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): value = 63
            default: continue  // padding
            }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return out
    }

    static func hexDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            if let high = value(ofHex: bytes[index]), let low = value(ofHex: bytes[index + 1]) { out.append(high << 4 | low) }
            index += 2
        }
        return out
    }
}
