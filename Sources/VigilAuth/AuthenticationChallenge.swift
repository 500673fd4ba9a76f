/// The auth-schemes named in `WWW-Authenticate` field values (RFC 9110, section 11.6.1): each
/// value may hold several challenges, separated by commas that also separate their parameters.
enum AuthenticationChallenge {
    /// Schemes in order, lower-cased, without duplicates.
    static func schemes(in values: [String]) -> [String] {
        var schemes: [String] = []
        for value in values {
            for element in elements(of: value) {
                // A challenge starts with a token not followed by "=" (that would be a parameter).
                let token = element.prefix { !$0.isWhitespace && $0 != "=" }
                let rest = element.dropFirst(token.count).drop { $0.isWhitespace }
                guard !token.isEmpty, !rest.hasPrefix("=") else { continue }
                let scheme = token.lowercased()
                if !schemes.contains(scheme) { schemes.append(scheme) }
            }
        }
        return schemes
    }

    /// Comma-separated elements, commas inside quoted strings kept, each trimmed.
    static func elements(of value: String) -> [Substring] {
        var elements: [Substring] = []
        var start = value.startIndex
        var quoted = false
        var escaped = false
        var index = value.startIndex
        while index < value.endIndex {
            let character = value[index]
            if escaped {
                escaped = false
            } else if quoted, character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == ",", !quoted {
                elements.append(value[start..<index])
                start = value.index(after: index)
            }
            index = value.index(after: index)
        }
        elements.append(value[start...])
        return elements.map { $0.drop { $0.isWhitespace } }.map { Substring($0.reversed().drop { $0.isWhitespace }.reversed()) }.filter { !$0.isEmpty }
    }
}
