import FoundationEssentials
import Glibc
import Synchronization
import VigilText

/// Cookies for one account in one process (`core.cookie-support-enabled`): kept in memory, never
/// written anywhere, sent back only to the https origin (scheme, host, port) that set them and
/// only on paths under the cookie's `Path`. What an access-policy manager in front of a server
/// needs; a session cookie is a credential, so it goes where the origin's certificate was judged.
public final class CookieJar: Sendable {
    struct Cookie: Hashable {
        var origin: String
        var name: String
        var value: String
        var path: String
    }

    private let cookies = Mutex<[Cookie]>([])

    /// An empty jar.
    public init() {}

    /// How many cookies the jar holds.
    public var count: Int { cookies.withLock { $0.count } }

    /// The `Cookie` header value for `url`, or nil.
    /// Forgets every cookie (`connection.validator-flags` clear-cookies: a server being validated
    /// again starts without the session an access-policy manager gave).
    public func removeAll() { cookies.withLock { $0.removeAll() } }

    func header(for url: URLParts, path: String) -> String? {
        guard url.scheme == "https" else { return nil }
        let origin = Self.origin(url)
        let matching = cookies.withLock { $0 }.filter {
            $0.origin == origin && (path == $0.path || path.hasPrefix($0.path.hasSuffix("/") ? $0.path : $0.path + "/"))
        }
        guard !matching.isEmpty else { return nil }
        // The header stays under 8 KB: the newest cookies first.
        var header = ""
        for cookie in matching.reversed() {
            let pair = "\(cookie.name)=\(cookie.value)"
            if header.utf8.count + pair.utf8.count + 2 > 8192 { break }
            header = header.isEmpty ? pair : pair + "; " + header
        }
        return header
    }

    static let perOrigin = 20

    static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value > 0x20 && scalar.value < 0x7F && !"()<>@,;:\\\"/[]?={}".unicodeScalars.contains(scalar)
    }

    static func isCookieOctet(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v == 0x21 || (0x23...0x2B).contains(v) || (0x2D...0x3A).contains(v) || (0x3C...0x5B).contains(v) || (0x5D...0x7E).contains(v)
    }

    /// An HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`; RFC 850's `Wednesday, 21-Oct-15 07:28:00 GMT`
    /// and `Wed, 21-Oct-2015 07:28:00 GMT` too), in GMT; nil for anything else.
    static func httpDate(_ text: String) -> Date? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" || $0 == ":" }).map(String.init)
        // weekday, day, month, year, hour, minute, second, zone
        guard fields.count == 8, fields[7] == "GMT" || fields[7] == "UTC", let day = Int(fields[1]), let hour = Int(fields[4]),
            let minute = Int(fields[5]), let second = Int(fields[6]), var year = Int(fields[3]),
            let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"].firstIndex(of: fields[2]),
            (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        if fields[3].count == 2 { year += year < 70 ? 2000 : 1900 }
        guard (1601...9999).contains(year) else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    /// Keeps the `Set-Cookie` values of an https answer from `url` (RFC 6265, the parts a session
    /// needs: name, value, Path; `Max-Age` of 0 or less, or a past `Expires`, removes). Returns how
    /// many were set.
    @discardableResult
    func store(_ headers: [(name: String, value: String)], from url: URLParts, path: String) -> Int {
        guard url.scheme == "https" else { return 0 }
        let origin = Self.origin(url)
        var set = 0
        cookies.withLock { cookies in
            for field in headers where field.name.lowercased() == "set-cookie" {
                let parts = field.value.split(separator: ";").map { $0.trimmingSpaces() }
                guard let pair = parts.first, let equals = pair.firstIndex(of: "="), equals != pair.startIndex else { continue }
                let name = String(pair[..<equals]), value = pair[pair.index(after: equals)...].trimming(charactersIn: "\"")
                // RFC 6265: the name a token, the value cookie-octets; anything else is dropped, so that
                // no value can split or corrupt the Cookie header.
                guard name.count <= 256, value.count <= 4096, name.unicodeScalars.allSatisfy(Self.isTokenCharacter),
                    value.unicodeScalars.allSatisfy(Self.isCookieOctet)
                else { continue }
                // The default path: the request path up to its last "/" (RFC 6265 section 5.1.4).
                var cookiePath = path.lastIndex(of: "/").map { String(path[..<$0]) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/"
                var expired = false
                for attribute in parts.dropFirst() {
                    let pieces = attribute.split(separator: "=", maxSplits: 1).map(String.init)
                    switch pieces.first?.lowercased() {
                    case "path"? where pieces.count == 2 && pieces[1].hasPrefix("/"): cookiePath = pieces[1]
                    case "max-age"? where pieces.count == 2: expired = (Int(pieces[1]) ?? 1) <= 0
                    case "expires"? where pieces.count == 2: if let date = Self.httpDate(pieces[1]), date < Date() { expired = true }
                    default: break
                    }
                }
                cookies.removeAll { $0.origin == origin && $0.name == name && $0.path == cookiePath }
                guard !expired else { continue }
                // At most 20 per origin (the oldest goes), so that one origin cannot crowd out another.
                if cookies.filter({ $0.origin == origin }).count >= Self.perOrigin, let oldest = cookies.firstIndex(where: { $0.origin == origin }) {
                    cookies.remove(at: oldest)
                }
                cookies.append(Cookie(origin: origin, name: name, value: value, path: cookiePath))
                set += 1
            }
        }
        return set
    }

    static func origin(_ url: URLParts) -> String { "\(url.scheme)://\(url.host.lowercased()):\(url.port)" }
}
