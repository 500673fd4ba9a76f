import FoundationEssentials
import VigilText

/// What an administrator does about a server that advertises `http://` URLs while it is reached
/// over https: almost always a TLS-terminating reverse proxy in front of a server that was not
/// told so. Each product has its own setting; the advice names the one for the product the
/// server says it is (status.php's `productname`), or all of them when it is not known.
public enum PlainHTTPAdvice {
    /// The sentence for `server` (the https URL the user gave), `product` as status.php names it.
    /// A `server` that is not a plain https origin (hostile text from a redirect) is shown as
    /// `https://SERVER`: the advice is code in the administrator's config file.
    public static func text(server given: String, product: String?) -> String {
        let server = isPlainOrigin(given) ? given : "https://SERVER"
        let name = (product ?? "").lowercased()
        let php = "'overwriteprotocol' => 'https' and 'overwrite.cli.url' => '\(server)' in config/config.php"
        let fix: String
        if name.contains("nextcloud") {
            fix = "set \(php) (Nextcloud)"
        } else if name.contains("opencloud") {
            fix = "set OC_URL=\(server) in the server's environment (OpenCloud)"
        } else if name.contains("infinite scale") || name.contains("ocis") {
            fix = "set OCIS_URL=\(server) in the server's environment (oCIS)"
        } else if name.contains("owncloud") {
            fix = "set \(php) (ownCloud)"
        } else {
            fix = "set \(php) (ownCloud, Nextcloud), or OCIS_URL / OC_URL=\(server) (oCIS, OpenCloud)"
        }
        return "This is what a server behind a TLS-terminating proxy does when it was not told that it is reached over https: its administrator should \(fix)."
    }

    /// The https origin of `url` (`http://cloud.example.com/x` gives `https://cloud.example.com`),
    /// for the advice's URL; `https://SERVER` when its host cannot be read or is not plain.
    public static func httpsOrigin(of url: String) -> String {
        guard let parts = URLComponents(string: url), let host = parts.percentEncodedHost, HostName.isPlain(host) else { return "https://SERVER" }
        return "https://" + (host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host)
    }

    /// `https://HOST[:PORT]` with a plain host, an optional port and at most a path of URL-safe characters.
    static func isPlainOrigin(_ text: String) -> Bool {
        guard text.lowercased().hasPrefix("https://"), let parts = URLComponents(string: text), let host = parts.percentEncodedHost,
            HostName.isPlain(host)
        else { return false }
        return parts.percentEncodedPath.utf8.allSatisfy { $0 == UInt8(ascii: "/") || PercentEncoding.isUnreserved($0) }
            && parts.percentEncodedQuery == nil && parts.percentEncodedFragment == nil && parts.percentEncodedUser == nil
    }
}
