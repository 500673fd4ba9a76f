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

    /// curl's `no_proxy`: `*`, or a list of host names, domain suffixes and addresses.
    static func bypasses(_ host: String, _ list: String) -> Bool {
        let target = host.lowercased().trimming(charactersIn: "[]")
        let name = target.hasSuffix(".") ? String(target.dropLast()) : target
        // Commas or spaces between entries, as curl takes them. An entry Vigil does not read (a
        // CIDR range) bypasses nothing: the proxy is then used, and verified.
        for entry in list.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map({ $0.lowercased() }) where !entry.isEmpty {
            if entry == "*" { return true }
            var entryName = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            if entryName.hasSuffix(".") { entryName.removeLast() }
            if name == entryName || name.hasSuffix("." + entryName) { return true }
        }
        return false
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
    func apply(to handle: UnsafeMutableRawPointer, capture: UnsafeMutablePointer<vigil_tls_capture>?, kept: ProxyCredential?, environment: [String: String])
        throws -> (host: UnsafeMutablePointer<CChar>?, offer: Offer)
    {
        // The URL without user information: the credential is set apart, with its schemes.
        try Curl.set(handle, CURLOPT_PROXY, text: identity.map { "\($0.scheme)://\($0.host.contains(":") ? "[\($0.host)]" : $0.host):\($0.port)" } ?? "")
        // curl would apply no_proxy again, by rules of its own (CIDR, spaces): Vigil's choice is
        // the only one, so the handshake the capture treats as the proxy's is the proxy's.
        try Curl.set(handle, CURLOPT_NOPROXY, text: "")
        var offer = Offer()
        if let identity {
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
                    try Curl.set(handle, CURLOPT_PROXYAUTH, clear ? Self.schemesWithBasic : Self.schemesWithoutBasic)
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
