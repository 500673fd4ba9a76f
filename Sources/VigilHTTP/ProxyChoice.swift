import CCurl
import FoundationEssentials
import Glibc
import VigilLogging
import VigilText

/// The proxy a request to an https URL goes through, chosen the way curl does from the
/// environment (`https_proxy`, `HTTPS_PROXY`, `all_proxy`, `ALL_PROXY`, minus `no_proxy`), and
/// then set explicitly on the handle so that Vigil knows what curl will do:
/// - an https proxy's certificate is verified by OpenSSL (its chain to the system store, or
///   `VIGIL_PROXY_CA_FILE`, and its name) before curl sends CONNECT and any Proxy-Authorization;
/// - an http proxy with a user name or password is refused: it would read the password in clear
///   (`VIGIL_ALLOW_PLAIN_PROXY_CREDENTIALS=1` allows it).
struct ProxyChoice {
    /// The proxy URL, or nil for a direct connection.
    var url: String?
    var host: String?
    var isHTTPS: Bool

    static func forHTTPS(host target: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ProxyChoice {
        try choose(host: target, names: ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"], environment: environment)
    }

    /// For an http URL: `http_proxy` (curl reads no upper-case `HTTP_PROXY`), `all_proxy`.
    static func forHTTP(host target: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ProxyChoice {
        try choose(host: target, names: ["http_proxy", "all_proxy", "ALL_PROXY"], environment: environment)
    }

    static func choose(host target: String, names: [String], environment: [String: String]) throws -> ProxyChoice {
        func value(_ names: [String]) -> String? { names.lazy.compactMap { environment[$0] }.first { !$0.isEmpty } }
        guard let proxy = value(names) else { return ProxyChoice(url: nil, host: nil, isHTTPS: false) }
        if let exceptions = value(["no_proxy", "NO_PROXY"]), bypasses(target, exceptions) { return ProxyChoice(url: nil, host: nil, isHTTPS: false) }
        let text = proxy.contains("://") ? proxy : "http://" + proxy
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(), let host = parts.host, !host.isEmpty else {
            // Never echoed: a password in it may hold any character.
            throw HTTPError(
                .proxy, "The proxy setting (\(names.first { environment[$0]?.isEmpty == false } ?? "proxy")) is not a URL Vigil can use. Nothing was sent.")
        }
        guard ["http", "https"].contains(scheme) else {
            throw HTTPError(.proxy, "Only http and https proxies are used (the proxy setting names \(scheme)).")
        }
        let credentials = parts.user != nil || parts.password != nil
        if scheme == "http", credentials, environment["VIGIL_ALLOW_PLAIN_PROXY_CREDENTIALS"] != "1" {
            throw HTTPError(
                .proxy,
                "The proxy \(scheme)://\(host) is plain HTTP and would read its password in clear; use an https proxy, or set VIGIL_ALLOW_PLAIN_PROXY_CREDENTIALS=1. Nothing was sent."
            )
        }
        return ProxyChoice(url: text, host: host.trimming(charactersIn: "[]"), isHTTPS: scheme == "https")
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

    /// Sets the proxy on `handle` (none: curl's environment lookup is switched off) and arms the
    /// proxy's verification in `capture` (nil: curl verifies an https proxy itself). Returns the
    /// copy of the proxy's host the capture points to: free it after the transfer.
    func apply(to handle: UnsafeMutableRawPointer, capture: UnsafeMutablePointer<vigil_tls_capture>?) throws -> UnsafeMutablePointer<CChar>? {
        try Curl.set(handle, CURLOPT_PROXY, text: url ?? "")
        // curl would apply no_proxy again, by rules of its own (CIDR, spaces): Vigil's choice is
        // the only one, so the handshake the capture treats as the proxy's is the proxy's.
        try Curl.set(handle, CURLOPT_NOPROXY, text: "")
        guard isHTTPS, let host else { return nil }
        if let file = ProcessInfo.processInfo.environment["VIGIL_PROXY_CA_FILE"], !file.isEmpty {
            try Curl.set(handle, CURLOPT_PROXY_CAINFO, text: file)
        }
        try Curl.set(handle, CURLOPT_PROXY_SSL_VERIFYPEER, 1)
        try Curl.set(handle, CURLOPT_PROXY_SSL_VERIFYHOST, 2)
        guard let capture else { return nil }
        let copy = strdup(host)
        capture.pointee.proxy_pending = 1
        capture.pointee.proxy_host = UnsafePointer(copy)
        return copy
    }
}
