import FoundationEssentials
import VigilHTTP

extension ServerCheck {
    /// HSTS as a server sent it.
    public struct HSTS: Sendable, Codable, Hashable {
        /// max-age in seconds; nil when missing or unreadable.
        public var maxAge: Int?
        /// `includeSubDomains` is there.
        public var includeSubDomains: Bool
        /// `preload` is there (the header asks for the browsers' preload lists).
        public var preload: Bool

        /// The header's value read as RFC 6797 says (directive names without case, values maybe quoted).
        init(_ value: String) {
            var maxAge: Int?
            var (subdomains, preload) = (false, false)
            for part in value.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1).map { String($0.filter { $0 != " " && $0 != "\t" && $0 != "\"" }) }
                switch pair.first?.lowercased() {
                case "max-age": maxAge = pair.count == 2 ? Int(pair[1]) : nil
                case "includesubdomains": subdomains = true
                case "preload": preload = true
                default: break
                }
            }
            self.maxAge = maxAge
            self.includeSubDomains = subdomains
            self.preload = preload
        }
    }

    /// What the HTTP side found.
    struct HTTPSide: Sendable {
        var cloud: Cloud?
        var findings: [ServerFinding] = []
        /// Why it was not checked; nil when it was.
        var problem: String?
        var hsts: HSTS?
    }

    /// The HTTP side, only for a server whose certificate is trusted (nothing goes to one that is
    /// not): HSTS and versions leaked on the answer to status.php, plain http on `httpPort`, and
    /// for a cloud (status.php says `installed`) its own setup checks (``cloudChecks(_:_:status:)``).
    /// GET and PROPFIND requests without a credential; no redirect followed.
    func http(_ endpoint: Endpoint, path: String) async -> HTTPSide {
        let client = httpClient(plain: false)
        // A cloud installed under a path (https://host/owncloud) has its status.php there.
        let base = endpoint.description + path
        let status: HTTPResponse
        do { status = try await client.send(HTTPRequest(url: base + "/status.php")) } catch let error as HTTPError {
            return HTTPSide(problem: "status.php could not be read: \(error.reason)")
        } catch {
            return HTTPSide(problem: "status.php could not be read: \(error)")
        }
        var side = HTTPSide(hsts: status.header("Strict-Transport-Security").map(HSTS.init))
        side.findings = Self.transportFindings(status, hsts: side.hsts)
        if let httpPort { side.findings += await plainHTTP(endpoint, port: httpPort) }
        if let redirect = status.redirect {
            // Never followed (a loop, another host): the cloud is checked at the URL it names.
            side.findings.append(
                ServerFinding(
                    "status-redirected", .notice,
                    "status.php answers \(status.status) to \(String(redirect.location.prefix(200))), not followed: the cloud's own checks were not made; check that URL."
                ))
        }
        guard status.status == 200, let said = try? JSONDecoder().decode(StatusPHP.self, from: Data(status.body)), said.installed == true else {
            return side
        }
        let cloud = Cloud(
            product: said.productname ?? said.product, version: said.productversion ?? said.versionstring ?? said.version, edition: said.edition,
            maintenance: said.maintenance == true, upgradePending: said.needsDbUpgrade == true)
        side.cloud = cloud
        side.findings += await cloudChecks(client, base, root: endpoint.description, status: status, cloud: cloud)
        return side
    }

    /// A client that sends no credential, follows no redirect and judges the certificate as the scan did.
    func httpClient(plain: Bool) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        configuration.proxy = probe.proxy
        configuration.resolve = probe.resolve
        configuration.timeout = probe.timeout
        configuration.maximumBodySize = 1 << 20
        configuration.minimumTLSVersion = .tls10
        configuration.allowPlainHTTP = plain
        return HTTPClient(policy: EvaluatorTrustPolicy(judge: ConnectionJudge(evaluator: evaluator)), configuration: configuration).keepingConnections()
    }

    /// status.php's fields Vigil reads (ownCloud, Nextcloud and OpenCloud name them alike;
    /// OpenCloud and Infinite Scale say their own version in `productversion`).
    struct StatusPHP: Decodable {
        var installed: Bool?
        var maintenance: Bool?
        var needsDbUpgrade: Bool?
        var version: String?
        var versionstring: String?
        var productversion: String?
        var edition: String?
        var productname: String?
        var product: String?
    }

    /// HSTS and versions in headers: any https server.
    static func transportFindings(_ answer: HTTPResponse, hsts: HSTS?) -> [ServerFinding] {
        var findings: [ServerFinding] = []
        let fix = (
            nginx: "add_header Strict-Transport-Security \"max-age=63072000; includeSubDomains\" always;",
            apache: "Header always set Strict-Transport-Security \"max-age=63072000; includeSubDomains\""
        )
        if let hsts {
            if (hsts.maxAge ?? 0) < 15_552_000 {
                findings.append(
                    ServerFinding(
                        "hsts-short", .warning, "HSTS's max-age is \(hsts.maxAge.map(String.init) ?? "missing"): under 180 days.", nginx: fix.nginx,
                        apache: fix.apache))
            }
            if !hsts.includeSubDomains {
                findings.append(
                    ServerFinding(
                        "hsts-no-subdomains", .notice, "HSTS does not include subdomains: a name under this one can still be reached over http.",
                        nginx: fix.nginx, apache: fix.apache))
            }
        } else {
            findings.append(
                ServerFinding(
                    "no-hsts", .warning, "No Strict-Transport-Security header: a first visit over http can be kept on http by a man in the middle.",
                    nginx: fix.nginx, apache: fix.apache))
        }
        let leaked = ["Server", "X-Powered-By"].compactMap { name in answer.header(name).map { (name, $0) } }.filter {
            $0.1.contains { $0.isNumber }
        }
        if !leaked.isEmpty {
            findings.append(
                ServerFinding(
                    "version-leaked", .notice,
                    "Versions are named in headers: " + leaked.map { "\($0.0): \(String($0.1.prefix(80)))" }.joined(separator: "; ") + ".",
                    nginx: "server_tokens off;  # and expose_php = Off in php.ini", apache: "ServerTokens Prod; ServerSignature Off"))
        }
        return findings
    }

    /// Plain http on `port` should answer only with a redirect to https on the same host; nothing
    /// listening is fine (no finding).
    func plainHTTP(_ endpoint: Endpoint, port: Int) async -> [ServerFinding] {
        let host = endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host
        let url = "http://\(host):\(port)/status.php"
        let answer: HTTPResponse
        do { answer = try await httpClient(plain: true).send(HTTPRequest(url: url)) } catch { return [] }
        let fix = (nginx: "server { listen \(port); return 301 https://$host$request_uri; }", apache: "Redirect permanent / https://\(host)/")
        guard let redirect = answer.redirect else {
            return [
                ServerFinding(
                    "http-not-redirected", .warning, "Plain http on port \(port) answers \(answer.status) instead of redirecting to https.", nginx: fix.nginx,
                    apache: fix.apache)
            ]
        }
        // Endpoint takes https URLs only: an http target, or another host, is not the way to this server.
        guard let target = try? Endpoint(url: redirect.location), target.host.lowercased() == endpoint.host.lowercased() else {
            return [
                ServerFinding(
                    "http-redirect-elsewhere", .warning, "Plain http on port \(port) redirects to \(redirect.location), not to https on this host.",
                    nginx: fix.nginx, apache: fix.apache)
            ]
        }
        return []
    }
}
