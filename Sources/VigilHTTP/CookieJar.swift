import Foundation

/// Cookies for one account in one process (`core.cookie-support-enabled`): kept in memory, never
/// written anywhere, sent back only to the https origin (scheme, host, port) that set them and
/// only on paths under the cookie's `Path`. What an access-policy manager in front of a server
/// needs; a session cookie is a credential, so it goes where the origin's certificate was judged.
public final class CookieJar: @unchecked Sendable {  // `cookies` guarded by lock
    struct Cookie: Hashable {
        var origin: String
        var name: String
        var value: String
        var path: String
    }

    private let lock = NSLock()
    private var cookies: [Cookie] = []

    public init() {}

    /// How many cookies the jar holds.
    public var count: Int { lock.lock(); defer { lock.unlock() }; return cookies.count }

    /// The `Cookie` header value for `url`, or nil.
    func header(for url: URLParts, path: String) -> String? {
        guard url.scheme == "https" else { return nil }
        let origin = Self.origin(url)
        lock.lock(); defer { lock.unlock() }
        let matching = cookies.filter { $0.origin == origin && (path == $0.path || path.hasPrefix($0.path.hasSuffix("/") ? $0.path : $0.path + "/")) }
        return matching.isEmpty ? nil : matching.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// Keeps the `Set-Cookie` values of an https answer from `url` (RFC 6265, the parts a session
    /// needs: name, value, Path; `Max-Age=0` or a past `Expires` removes). Returns how many were set.
    @discardableResult
    func store(_ headers: [(name: String, value: String)], from url: URLParts, path: String) -> Int {
        guard url.scheme == "https" else { return 0 }
        let origin = Self.origin(url)
        var set = 0
        lock.lock(); defer { lock.unlock() }
        for field in headers where field.name.lowercased() == "set-cookie" {
            let parts = field.value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let pair = parts.first, let equals = pair.firstIndex(of: "="), equals != pair.startIndex else { continue }
            let name = String(pair[..<equals]), value = String(pair[pair.index(after: equals)...])
            guard name.count <= 256, value.count <= 4096, !name.contains(where: { $0.isWhitespace || $0 == "," }) else { continue }
            var cookiePath = "/" + path.split(separator: "/").dropLast().joined(separator: "/")
            var expired = false
            for attribute in parts.dropFirst() {
                let pieces = attribute.split(separator: "=", maxSplits: 1).map(String.init)
                switch pieces.first?.lowercased() {
                case "path"? where pieces.count == 2 && pieces[1].hasPrefix("/"): cookiePath = pieces[1]
                case "max-age"? where pieces.count == 2: expired = (Int(pieces[1]) ?? 1) <= 0
                default: break
                }
            }
            cookies.removeAll { $0.origin == origin && $0.name == name && $0.path == cookiePath }
            if !expired, cookies.count < 64 { cookies.append(Cookie(origin: origin, name: name, value: value, path: cookiePath)); set += 1 }
        }
        return set
    }

    static func origin(_ url: URLParts) -> String { "\(url.scheme)://\(url.host.lowercased()):\(url.port)" }
}
