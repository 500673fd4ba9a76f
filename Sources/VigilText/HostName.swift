import Glibc

/// One spelling of a host, so that every comparison of hosts (approvals, pins, pre-approvals,
/// reviewed leaves, the connection decision) treats the forms of one host as one: letters in
/// lower case, a fully qualified name's trailing dot dropped (`example.com.` is `example.com`; a single label
/// keeps it),
/// brackets around an IPv6 literal dropped, and an IP address in its canonical form
/// (`0:0:0:0:0:0:0:1` and `::1` are one host; `127.000.000.001` is not an address and stays text).
public enum HostName {
    /// The canonical spelling of `host` (IPv6 without brackets).
    public static func canonical(_ host: String) -> String {
        var bare = host.lowercased()
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            if inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil { return text(buffer) }
        }
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            var buffer = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            if inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count)) != nil { return text(buffer) }
        }
        return withoutTrailingDot(bare)
    }

    /// `name` without a fully qualified name's trailing dot (`files.example.com.` is
    /// `files.example.com`), the one rule for hosts and for the names certificates are checked
    /// against. Only a name of two labels or more: a single label with its dot (`files.`) is
    /// absolute, without it (`files`) the resolver's search domains may make it another host.
    public static func withoutTrailingDot(_ name: String) -> String {
        guard name.hasSuffix("."), !name.hasSuffix(".."), name.dropLast().contains(".") else { return name }
        return String(name.dropLast())
    }

    /// Whether `host` holds host characters only: a name of letters, digits, `-`, `_` and `.`
    /// (an IPv4 address among them), or an IPv6 address, bracketed or not (no zone). Nothing
    /// that a URL parser reads as syntax (`%`, `@`, `/`, `#`, `?`, `:` outside IPv6), so that the
    /// host shown is the host connected to.
    public static func isPlain(_ host: String) -> Bool {
        var bare = Substring(host)
        if bare.hasPrefix("["), bare.hasSuffix("]") {
            bare = bare.dropFirst().dropLast()
            var v6 = in6_addr()
            return inet_pton(AF_INET6, String(bare), &v6) == 1
        }
        if bare.contains(":") {
            var v6 = in6_addr()
            return inet_pton(AF_INET6, String(bare), &v6) == 1
        }
        return !bare.isEmpty && bare.utf8.count <= 253
            && bare.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
                case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): true
                default: false
                }
            }
    }

    /// True when `a` and `b` name the same host.
    public static func same(_ a: String, _ b: String) -> Bool { canonical(a) == canonical(b) }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
