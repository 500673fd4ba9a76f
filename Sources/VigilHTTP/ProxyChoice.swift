internal import CCurl
import FoundationEssentials
import Glibc
import VigilLogging
import VigilText

/// One proxy a connection may go through (or none: ``direct``), set explicitly on the handle so
/// that Vigil knows what curl will do (curl's own environment lookup is switched off):
/// - an https proxy's certificate is verified by OpenSSL (its chain to the system store, or
///   `VIGIL_PROXY_CA_FILE`, and its name) before curl sends CONNECT and any Proxy-Authorization;
/// - a password goes to the proxy it is kept for and no other, only after that proxy answered
///   407 (never pre-emptively), by the strongest scheme it offers; a scheme that shows the
///   password (Basic over a plain-http proxy, SOCKS5's) only with the user's consent.
public struct ProxyChoice: Sendable, Hashable {
    /// The proxy URL as curl takes it (user information included, when the variable held it), or nil for a direct connection.
    var url: String?
    /// The proxy's host, for the verification of an https proxy.
    var host: String?
    var isHTTPS: Bool
    /// The proxy's scheme, host and port; nil when direct.
    public var identity: ProxyIdentity?
    /// User information in the URL (`https_proxy=http://user:password@proxy`).
    var userInformation: (user: String, password: String)? {
        guard let url, let parts = URLComponents(string: url), parts.user != nil || parts.password != nil else { return nil }
        return (parts.user ?? "", parts.password ?? "")
    }

    /// A direct connection.
    public static let direct = ProxyChoice(url: nil, host: nil, isHTTPS: false, identity: nil)

    /// The proxy without user information (`http://proxy:3128`), or `direct`.
    public var shown: String { identity?.description ?? "direct" }

    /// The same proxy URL (or both direct).
    public static func == (a: ProxyChoice, b: ProxyChoice) -> Bool { a.url == b.url }
    /// Hashes the proxy URL.
    public func hash(into hasher: inout Hasher) { hasher.combine(url) }

    /// The proxy of the first of `names` set in `environment`, minus `no_proxy`; ``direct`` when none applies.
    static func choose(host target: String, names: [String], environment: [String: String]) throws -> ProxyChoice {
        func value(_ names: [String]) -> String? { names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty } }
        guard let proxy = value(names) else { return .direct }
        if let exceptions = value(["no_proxy", "NO_PROXY"]), bypasses(target, exceptions) { return .direct }
        return try parse(proxy, named: names.first { environment[$0]?.isEmpty == false } ?? "proxy", environment: environment)
    }

    /// A proxy URL (`http://`, `https://`, `socks5h://`, `socks4a://`; no scheme means http).
    static func parse(_ proxy: String, named name: String, environment: [String: String]) throws -> ProxyChoice {
        let text = proxy.contains("://") ? proxy : "http://" + proxy
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(), let host = parts.host, !host.isEmpty,
            let identity = ProxyIdentity(url: text)
        else {
            // Never echoed: a password in it may hold any character.
            throw HTTPError(.proxy, "The proxy setting (\(name)) is not a URL Vigil can use. Nothing was sent.")
        }
        guard ["http", "https", "socks5h", "socks4a"].contains(scheme) else {
            let hint =
                scheme == "socks5" || scheme == "socks4"
                ? " (use \(scheme == "socks5" ? "socks5h" : "socks4a")://, which leaves name resolution to the proxy)" : ""
            throw HTTPError(.proxy, "Only http, https, socks5h and socks4a proxies are used (\(name) names \(SafeText.escaped(scheme)))\(hint).")
        }
        return ProxyChoice(url: text, host: host.trimming(charactersIn: "[]"), isHTTPS: scheme == "https", identity: identity)
    }

    /// The error when the shim found the https proxy's certificate untrusted (`proxy_failed`).
    static func untrusted(_ host: UnsafePointer<CChar>) -> HTTPError {
        HTTPError(
            .proxy,
            "The https proxy \(String(cString: host)) presented a certificate that is not trusted for its name; nothing was sent to it (no CONNECT, no proxy password). Trust its CA with --proxy-ca-file (or VIGIL_PROXY_CA_FILE)."
        )
    }

    /// curl's `no_proxy`: `*`, or a list of host names, domain suffixes (`.corp`, `*.corp`),
    /// addresses and address ranges (`127.0.0.0/8`, `fd00::/8`, as curl 7.86 and GNOME read them).
    static func bypasses(_ host: String, _ list: String) -> Bool {
        let target = host.lowercased().trimming(charactersIn: "[]")
        let name = target.hasSuffix(".") ? String(target.dropLast()) : target
        // Commas or spaces between entries, as curl takes them. An entry Vigil does not read
        // bypasses nothing: the proxy is then used, and verified.
        for entry in list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map({ $0.lowercased() }) where !entry.isEmpty {
            if entry == "*" { return true }
            if entry.contains("/") {
                if Self.address(name, isIn: entry.trimming(charactersIn: "[]")) { return true }
                continue
            }
            var entryName = entry.hasPrefix("*.") ? String(entry.dropFirst(2)) : entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            if entryName.hasSuffix(".") { entryName.removeLast() }
            // An address matches itself only (`0.1` is no suffix of `10.0.0.1`).
            if name == entryName || (!Self.isAddress(entryName) && name.hasSuffix("." + entryName)) { return true }
        }
        return false
    }

    /// Whether `text` is an IPv4 or IPv6 address (no brackets).
    static func isAddress(_ text: String) -> Bool { address(text, isIn: text + (text.contains(":") ? "/128" : "/32")) }

    /// Whether the address `host` (IPv4 or IPv6 text) is in `range` (`ADDRESS/BITS`).
    static func address(_ host: String, isIn range: String) -> Bool {
        let parts = range.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let bits = Int(parts[1]) else { return false }
        func bytes(_ text: String) -> [UInt8]? {
            var v4 = in_addr()
            if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
            var v6 = in6_addr()
            if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
            return nil
        }
        guard let network = bytes(String(parts[0]).trimming(charactersIn: "[]")), let address = bytes(host), network.count == address.count,
            bits >= 0, bits <= network.count * 8
        else { return false }
        for index in 0..<network.count {
            let left = bits - index * 8
            guard left > 0 else { break }
            let mask: UInt8 = left >= 8 ? 0xFF : ~(0xFF >> UInt8(left))
            if network[index] & mask != address[index] & mask { return false }
        }
        return true
    }

    // curl.h's CURLAUTH_ bits (its ANY and ANYSAFE are macros Swift does not import).
    static let basic = 1, digest = 2, negotiate = 4, ntlm = 8, only = 1 << 31
    /// Negotiate, NTLM, Digest and Basic: curl picks the strongest the proxy offers.
    static let schemesWithBasic = negotiate | ntlm | digest | basic
    /// The same without Basic, which shows the password to whoever reads the way to the proxy.
    static let schemesWithoutBasic = negotiate | ntlm | digest

    /// What was offered to the proxy: the credential's user, and whether one was given at all.
    struct Offer {
        var user: String?
        var clearTextRefused = false
    }

    /// Sets the proxy on `handle` (direct: curl's environment lookup is switched off), its
    /// credential (`kept`, else the URL's user information) and the schemes it may be sent by,
    /// and arms the proxy's verification in `capture` (nil: curl verifies an https proxy
    /// itself). Returns the copy of the proxy's host the capture points to (free it after the
    /// transfer) and what was offered.
    /// `tunnelled`: the request goes through a CONNECT tunnel (https); a plain-HTTP request sent
    /// through the proxy gets no credential and no Kerberos at all, because a 407 to it may be the
    /// server's.
    func apply(
        to handle: UnsafeMutableRawPointer, capture: UnsafeMutablePointer<vigil_tls_capture>?, kept: ProxyCredential?, environment: [String: String],
        tunnelled: Bool = true
    ) throws -> (host: UnsafeMutablePointer<CChar>?, offer: Offer) {
        // The URL without user information: the credential is set apart, with its schemes.
        try Curl.set(handle, CURLOPT_PROXY, text: identity?.description ?? "")
        // curl would apply no_proxy again, by rules of its own (CIDR, spaces): Vigil's choice is
        // the only one, so the handshake the capture treats as the proxy's is the proxy's.
        try Curl.set(handle, CURLOPT_NOPROXY, text: "")
        var offer = Offer()
        if let identity, tunnelled || identity.scheme.hasPrefix("socks") {
            let fromURL = userInformation.map {
                ProxyCredential(user: $0.user, password: $0.password, allowsClearText: environment["VIGIL_ALLOW_PLAIN_PROXY_CREDENTIALS"] == "1")
            }
            if let credential = kept ?? fromURL {
                offer.user = credential.user
                // Basic shows the password to whoever reads the way to a plain proxy: only with
                // consent. Every mask has several schemes, so curl asks first and answers the
                // proxy's 407 (never pre-emptively).
                let clear = !identity.isPlain || credential.allowsClearText
                offer.clearTextRefused = !clear
                if identity.scheme.hasPrefix("socks") {
                    // SOCKS5's user and password travel in clear: only with consent.
                    if clear {
                        try Curl.set(handle, CURLOPT_PROXYUSERNAME, text: credential.user)
                        try Curl.set(handle, CURLOPT_PROXYPASSWORD, text: credential.password)
                    }
                } else {
                    try Curl.set(handle, CURLOPT_PROXYUSERNAME, text: credential.user)
                    try Curl.set(handle, CURLOPT_PROXYPASSWORD, text: credential.password)
                    // This very proxy just asked for Basic alone, and the user agreed: answered
                    // at once on the new connection instead of being asked a second time.
                    let basicAsked = clear && !credential.challengedSchemes.isEmpty && credential.challengedSchemes.allSatisfy { $0.lowercased() == "basic" }
                    try Curl.set(handle, CURLOPT_PROXYAUTH, basicAsked ? Self.basic : clear ? Self.schemesWithBasic : Self.schemesWithoutBasic)
                }
            } else if !identity.scheme.hasPrefix("socks") {
                // No kept credential: the user's Kerberos ticket, if the proxy asks for Negotiate
                // (CURLAUTH_ONLY: asked first, never sent before the proxy's 407).
                try Curl.set(handle, CURLOPT_PROXYUSERPWD, text: ":")
                try Curl.set(handle, CURLOPT_PROXYAUTH, Self.negotiate | Self.only)
            }
        }
        guard isHTTPS, let host else { return (nil, offer) }
        if let file = environment["VIGIL_PROXY_CA_FILE"], !file.isEmpty {
            try Curl.set(handle, CURLOPT_PROXY_CAINFO, text: file)
        }
        try Curl.set(handle, CURLOPT_PROXY_SSL_VERIFYPEER, 1)
        try Curl.set(handle, CURLOPT_PROXY_SSL_VERIFYHOST, 2)
        guard let capture else { return (nil, offer) }
        let copy = strdup(host)
        capture.pointee.proxy_pending = 1
        capture.pointee.proxy_host = UnsafePointer(copy)
        return (copy, offer)
    }
}
