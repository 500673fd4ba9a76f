import FoundationEssentials
import Glibc
import VigilText

/// Renders HTTP requests and responses for the log with every credential removed, whatever the
/// privacy-mask setting:
/// - `Authorization` and `Proxy-Authorization` keep their scheme only: `Bearer [redacted]`;
/// - `Cookie` and `Set-Cookie` keep cookie names, not values;
/// - URL userinfo and the values of secret query parameters are redacted;
/// - form and JSON bodies have the same secret keys redacted; other bodies are cut at a limit.
public struct HTTPLogRedactor: Sendable {
    /// Query, form and JSON keys whose values are secrets (compared case-insensitively).
    public static let secretParameters: Set<String> = [
        "code", "state", "token", "access_token", "refresh_token", "id_token", "password", "passwd",
        "client_secret", "code_verifier", "assertion", "client_assertion", "sig", "signature",
        "x-amz-signature", "x-goog-signature", "apikey", "api_key", "secret", "otp", "nonce",
    ]
    /// Words that make any key secret wherever they appear in it, once lower-cased without `_`
    /// and `-` (`accessToken`, `appPassword`, `sessionId`, `SAMLResponse`, `RelayState`...).
    public static let secretWords = ["token", "secret", "password", "passwd", "ticket", "session", "saml", "relaystate", "apikey", "signature", "credential"]

    /// Keys that hold a secret word but never a secret.
    public static let publicKeys: Set<String> = [
        "token_type", "token_type_hint", "token_endpoint", "token_endpoint_auth_method", "token_endpoint_auth_methods_supported",
        "revocation_endpoint", "introspection_endpoint", "session_state_supported",
    ]

    /// Whether `key` names a secret: one of ``secretParameters``, or a key holding one of ``secretWords``.
    public static func isSecret(key: String) -> Bool {
        let lower = key.lowercased()
        if secretParameters.contains(lower) { return true }
        if publicKeys.contains(lower) { return false }
        let folded = lower.replacing("_", with: "").replacing("-", with: "")
        return secretWords.contains { folded.contains($0) }
    }

    /// Headers whose whole value is a secret (besides the authorization and cookie headers).
    public static let secretHeaders: Set<String> = ["x-auth-token", "x-api-key", "x-csrf-token", "requesttoken", "x-request-token", "ocs-apirequest-token"]

    /// Bodies longer than this (in bytes) are cut.
    public var maximumBodySize: Int
    /// More headers whose whole value is a secret, lower-cased (an account's access headers).
    public var secretHeaderNames: Set<String> = []

    /// A redactor that cuts other bodies at `maximumBodySize` bytes.
    public init(maximumBodySize: Int = 4096) {
        self.maximumBodySize = maximumBodySize
    }

    /// `GET https://host/path?code=[redacted]` plus headers and body, one item a line.
    public func request(method: String, url: String, headers: [(String, String)], body: [UInt8]?) -> String {
        var lines = ["\(method) \(redact(url: url))"]
        lines += headers.map { "\($0.0): \(redact(header: $0.0, value: $0.1))" }
        if let body, !body.isEmpty { lines.append(redact(body: body, contentType: contentType(headers))) }
        return lines.joined(separator: "\n")
    }

    /// `HTTP 200` plus headers and body.
    public func response(status: Int, headers: [(String, String)], body: [UInt8]?) -> String {
        var lines = ["HTTP \(status)"]
        lines += headers.map { "\($0.0): \(redact(header: $0.0, value: $0.1))" }
        if let body, !body.isEmpty { lines.append(redact(body: body, contentType: contentType(headers))) }
        return lines.joined(separator: "\n")
    }

    func contentType(_ headers: [(String, String)]) -> String {
        headers.first { $0.0.lowercased() == "content-type" }?.1.lowercased() ?? ""
    }

    /// One header value.
    public func redact(header name: String, value: String) -> String {
        switch name.lowercased() {
        case "authorization", "proxy-authorization":
            let scheme = value.split(separator: " ", maxSplits: 1).first.map(String.init) ?? ""
            return scheme.isEmpty || scheme.count == value.count ? "[redacted]" : "\(scheme) [redacted]"
        case "cookie":
            return value.split(separator: ";").map { pair in
                let name = pair.split(separator: "=", maxSplits: 1).first.map { $0.trimmingSpaces() } ?? ""
                return "\(name)=[redacted]"
            }.joined(separator: "; ")
        case "set-cookie":
            var parts = value.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            if let first = parts.first {
                let name = first.split(separator: "=", maxSplits: 1).first.map { $0.trimmingSpaces() } ?? ""
                parts[0] = "\(name)=[redacted]"
            }
            return parts.joined(separator: ";")
        case let lower where Self.secretHeaders.contains(lower) || secretHeaderNames.contains(lower):
            return "[redacted]"
        case let lower where Self.secretWords.contains(where: { lower.contains($0) }) || lower.hasPrefix("cf-access-"):
            // A header named like a secret (CF-Access-Client-Secret, X-Session-Token) is one.
            return "[redacted]"
        case "location", "content-location", "referer":
            return redact(url: value)
        default:
            return value
        }
    }

    /// A URL with userinfo and secret query (and fragment) values redacted. Plain string work,
    /// no URL parser: a hostile URL cannot make it fail, and what is not secret stays as sent.
    public func redact(url text: String) -> String {
        var rest = Substring(text)
        var fragment: Substring?
        if let hash = rest.firstIndex(of: "#") {
            fragment = rest[rest.index(after: hash)...]
            rest = rest[..<hash]
        }
        var query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var base = String(rest)
        // The authority starts after "scheme://" or, scheme-relative, after a leading "//".
        let authorityStart = base.firstRange(of: "://")?.upperBound ?? (base.hasPrefix("//") ? base.index(base.startIndex, offsetBy: 2) : nil)
        if let authorityStart {
            let authorityEnd = base[authorityStart...].firstIndex(of: "/") ?? base.endIndex
            if let at = base[authorityStart..<authorityEnd].lastIndex(of: "@") {
                base.replaceSubrange(authorityStart..<at, with: "[redacted]")
            }
        }
        var result = base
        if let query { result += "?" + redactForm(String(query)) }
        if let fragment { result += "#" + (fragment.contains("=") ? redactForm(String(fragment)) : String(fragment)) }
        return result
    }

    /// A body: forms and JSON with secret keys redacted; anything else cut at the limit.
    public func redact(body: [UInt8], contentType: String) -> String {
        if contentType.contains("application/x-www-form-urlencoded") {
            return cut(redactForm(String(decoding: body, as: UTF8.self)))
        }
        if contentType.contains("json") || body.first == UInt8(ascii: "{") || body.first == UInt8(ascii: "[") {
            if let json = JSONValue.parse(body) {
                return cut(String(decoding: redactJSON(json).encoded(), as: UTF8.self))
            }
            // JSON that does not parse (cut short, or a number no Double holds) is not logged:
            // the key-by-key redaction cannot run on it, and the scrubber knows fewer keys.
            if contentType.contains("json") { return "[\(body.count) bytes of JSON that could not be parsed; not logged]" }
        }
        guard let text = String(validating: body, as: UTF8.self) else { return "[\(body.count) bytes of binary data]" }
        return cut(SecretScrubber.scrub(text))
    }

    func redactForm(_ text: String) -> String {
        text.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let decoded = PercentEncoding.decode(name) ?? name
            guard parts.count == 2 else { return name }
            return Self.isSecret(key: decoded) ? "\(name)=[redacted]" : "\(name)=\(parts[1])"
        }.joined(separator: "&")
    }

    func redactJSON(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, member) in members {
                result[key] = Self.isSecret(key: key) ? .string("[redacted]") : redactJSON(member)
            }
            return .object(result)
        case .array(let elements): return .array(elements.map(redactJSON))
        case .string(let text): return .string(SecretScrubber.scrub(text))
        case .null, .bool, .number: return value
        }
    }

    func cut(_ text: String) -> String {
        guard let kept = Truncation.prefix(of: text, bytes: maximumBodySize) else { return text }
        return kept + " [body truncated: \(text.utf8.count) -> \(kept.utf8.count) bytes]"
    }
}
