import FoundationEssentials
import Glibc

/// The scheme, host and port of an http(s) URL, and its text (RFC 3986 reference resolution by
/// Foundation). Only what redirect classification needs.
struct URLParts {
    var scheme: String
    var host: String
    var port: Int
    var text: String
    /// The URL named a user or a password (`https://user:pw@host`); ``text`` keeps neither.
    var hadUserInformation = false

    init?(_ text: String, relativeTo base: URLParts? = nil) {
        let url: URL?
        if let base { url = URL(string: text, relativeTo: URL(string: base.text)) } else { url = URL(string: text) }
        guard let absolute = url?.absoluteURL, let scheme = absolute.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = absolute.host, !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = absolute.port ?? (scheme == "https" ? 443 : 80)
        if absolute.user != nil || absolute.password != nil {
            // The user information is dropped here, so that no message or log can echo a password;
            // a URL whose parts cannot be taken apart is no URL (never kept with the password).
            guard var parts = URLComponents(url: absolute, resolvingAgainstBaseURL: true) else { return nil }
            parts.user = nil
            parts.password = nil
            self.hadUserInformation = true
            self.text = parts.string ?? "\(scheme)://\(host)"
        } else {
            self.text = absolute.absoluteString
        }
    }
}
