import FoundationEssentials
import Glibc
import VigilHTTP

/// An access proxy's login page in front of the server (Cloudflare Access, oauth2-proxy,
/// Pomerium): what a request without the account's service token or client certificate meets.
/// It is not a server's redirect to review and approve: it is a door that needs a key.
enum AccessProxyPage {
    /// The proxy's name when `response` is its login page or a redirect to it; nil otherwise.
    static func recognize(_ response: HTTPResponse) -> String? {
        if let location = response.redirect?.location, let name = proxy(at: location) { return name }
        guard response.status == 401 || response.status == 403 else { return nil }
        let page = String(decoding: response.body.prefix(16_384), as: UTF8.self).lowercased()
        if page.contains("cdn-cgi/access") || page.contains("cloudflare access") { return "Cloudflare Access" }
        if page.contains("oauth2-proxy") || page.contains("/oauth2/start") { return "oauth2-proxy" }
        if page.contains("pomerium") { return "Pomerium" }
        return nil
    }

    /// The proxy whose login a URL is.
    static func proxy(at location: String) -> String? {
        guard let parts = URLComponents(string: location) else { return nil }
        let path = parts.path.lowercased(), host = (parts.host ?? "").lowercased()
        if path.contains("/cdn-cgi/access/") || host.hasSuffix(".cloudflareaccess.com") { return "Cloudflare Access" }
        if path.hasPrefix("/oauth2/start") || path.hasPrefix("/oauth2/sign_in") { return "oauth2-proxy" }
        if path.hasPrefix("/.pomerium/") || host.hasPrefix("authenticate.") && path.contains("/.pomerium") { return "Pomerium" }
        return nil
    }

    /// The error: an access proxy stands in front of the server, and what opens it.
    static func error(_ name: String, at base: String, hadHeaders: Bool) -> AccountSetupError {
        AccountSetupError(
            .accessProxy,
            "An access proxy (\(name)) stands in front of \(base) and sends Vigil to its login page"
                + (hadHeaders ? ", although the account's access headers were sent: check the service token" : "")
                + ". Vigil needs a service token (--access-headers-file FILE with its headers, e.g. CF-Access-Client-Id and CF-Access-Client-Secret) or a client certificate (--client-certificate FILE); the login page is not offered as a redirect. Nothing was sent to it."
        )
    }
}
