import FoundationEssentials
import VigilHTTP

extension ServerCheck {
    /// What the cloud says of itself in status.php.
    public struct Cloud: Sendable, Codable {
        /// `ownCloud`, `Nextcloud`, `OpenCloud`...
        public var product: String?
        /// Its version (`10.15.0`; OpenCloud's own, `productversion`, not its compatibility string).
        public var version: String?
        /// Its edition (`Community`, `Enterprise`).
        public var edition: String?
        /// In maintenance mode.
        public var maintenance: Bool
        /// An upgrade waits to be run (`needsDbUpgrade`).
        public var upgradePending: Bool
    }

    /// What a cloud's own setup checks ask for (the admin overview of ownCloud and Nextcloud,
    /// `occ setupchecks`): the security headers, maintenance, a pending upgrade, the data directory
    /// not served, the `.well-known` redirects its clients discover services by, WebDAV answering.
    /// `base` is the cloud's URL (its path too), `root` the host's: `.well-known` lives at the root.
    func cloudChecks(_ client: HTTPClient, _ base: String, root: String, status: HTTPResponse, cloud: Cloud) async -> [ServerFinding] {
        var findings = Self.cloudFindings(status, cloud: cloud)
        // The data directory must not be served: these files are in it.
        // Each is known by what it holds, not by a 200 alone (a front controller answers 200 to
        // any path): .ocdata is empty, htaccesstest.txt says what it is for.
        let marks: [(path: String, holds: ([UInt8]) -> Bool)] = [
            ("/data/.ocdata", { $0.count < 64 && !$0.contains(UInt8(ascii: "<")) }),
            ("/data/htaccesstest.txt", { String(decoding: $0.prefix(4096), as: UTF8.self).contains("htaccess") && !$0.contains(UInt8(ascii: "<")) }),
        ]
        for (path, holds) in marks {
            if let answer = try? await client.send(HTTPRequest(url: base + path)), answer.status == 200, holds(answer.body) {
                findings.append(
                    ServerFinding(
                        "data-directory-exposed", .error, "\(path) is served: the data directory (every user's files) can be read from the web.",
                        nginx: "location ~ ^/(?:data|config|\\.ht) { deny all; }  # or move the data directory out of the web root",
                        apache: "the shipped .htaccess with AllowOverride All, or move the data directory out of the web root"))
                break
            }
        }
        var missing: [String] = []
        for (path, redirects) in Self.wellKnown(for: cloud.product) {
            // A probe: no answer at all is said by the other checks, not as a missing redirect.
            guard let answer = try? await client.send(HTTPRequest(url: root + path)) else { continue }
            if redirects ? answer.redirect == nil : answer.status == 404 { missing.append(path) }
        }
        if !missing.isEmpty {
            findings.append(
                ServerFinding(
                    "well-known-missing", .notice,
                    "Not handled: \(missing.joined(separator: ", ")); calendar, contacts and federation clients discover the server's services there.",
                    nginx: "location = /.well-known/carddav { return 301 /remote.php/dav/; }  # likewise caldav; webfinger and nodeinfo to /index.php$uri",
                    apache: "Redirect 301 /.well-known/carddav /remote.php/dav/  # likewise caldav; the shipped .htaccess has them all"))
        }
        // WebDAV, where every client syncs: without a credential it must ask for one (401) or
        // answer (207); anything else means no client can sync.
        let propfind = HTTPRequest(method: "PROPFIND", url: base + "/remote.php/dav/", headers: [("Depth", "0")])
        if let answer = try? await client.send(propfind), ![401, 207].contains(answer.status), !cloud.maintenance {
            findings.append(
                ServerFinding(
                    "webdav-not-answering", .warning,
                    "WebDAV (/remote.php/dav/) answers \(answer.status) to a PROPFIND without a credential, where 401 is expected: clients cannot sync."))
        }
        return findings
    }

    /// The `.well-known` paths a product's setup checks ask for: true when a redirect is expected,
    /// false when any answer but 404 will do (a handler of its own).
    static func wellKnown(for product: String?) -> [(String, Bool)] {
        switch product?.lowercased() {
        case "nextcloud":
            [("/.well-known/caldav", true), ("/.well-known/carddav", true), ("/.well-known/webfinger", false), ("/.well-known/nodeinfo", false)]
        case "opencloud":
            [("/.well-known/webfinger", false)]
        default:
            [("/.well-known/caldav", true), ("/.well-known/carddav", true)]
        }
    }

    /// The setup checks read from status.php's answer: headers, maintenance, a pending upgrade.
    static func cloudFindings(_ answer: HTTPResponse, cloud: Cloud) -> [ServerFinding] {
        var findings: [ServerFinding] = []
        let wanted = [
            ("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "SAMEORIGIN"), ("X-Robots-Tag", "noindex, nofollow"),
            ("X-Permitted-Cross-Domain-Policies", "none"), ("Referrer-Policy", "no-referrer"),
        ]
        let missing = wanted.filter { answer.header($0.0) == nil }
        if !missing.isEmpty {
            findings.append(
                ServerFinding(
                    "headers-missing", .notice, "Headers the cloud's own setup checks ask for are missing: \(missing.map(\.0).joined(separator: ", ")).",
                    nginx: missing.map { "add_header \($0.0) \"\($0.1)\" always;" }.joined(separator: " "),
                    apache: missing.map { "Header always set \($0.0) \"\($0.1)\"" }.joined(separator: "; ")))
        }
        if cloud.maintenance {
            findings.append(ServerFinding("maintenance", .warning, "The server is in maintenance mode: clients cannot sync."))
        }
        if cloud.upgradePending {
            findings.append(ServerFinding("upgrade-pending", .warning, "An upgrade waits to be run (needsDbUpgrade): occ upgrade."))
        }
        return findings
    }
}
