import FoundationEssentials
import VigilHTTP

extension ServerCheck {
    /// What the cloud says of itself in status.php.
    public struct Cloud: Sendable, Codable {
        /// `ownCloud`, `Nextcloud`, `OpenCloud`...
        public var product: String?
        /// Its version (`10.15.0`).
        public var version: String?
        /// Its edition (`Community`, `Enterprise`).
        public var edition: String?
        /// In maintenance mode.
        public var maintenance: Bool
        /// An upgrade waits to be run (`needsDbUpgrade`).
        public var upgradePending: Bool
    }

    /// The HTTP side, only for a server whose certificate is trusted (nothing goes to one that is
    /// not): HSTS and versions leaked on the answer to status.php, and for a cloud (status.php
    /// says `installed`) its own setup checks' headers, maintenance, a pending upgrade, the data
    /// directory served from the web. GET requests without a credential; no redirect followed.
    func http(_ endpoint: Endpoint) async -> (cloud: Cloud?, findings: [ServerFinding], problem: String?) {
        var configuration = HTTPClient.Configuration()
        configuration.proxy = probe.proxy
        configuration.resolve = probe.resolve
        configuration.timeout = probe.timeout
        configuration.maximumBodySize = 1 << 20
        configuration.minimumTLSVersion = .tls10
        let client = HTTPClient(policy: EvaluatorTrustPolicy(judge: ConnectionJudge(evaluator: evaluator)), configuration: configuration)
            .keepingConnections()
        let base = endpoint.description
        let status: HTTPResponse
        do { status = try await client.send(HTTPRequest(url: base + "/status.php")) } catch let error as HTTPError {
            return (nil, [], "status.php could not be read: \(error.reason)")
        } catch {
            return (nil, [], "status.php could not be read: \(error)")
        }
        var findings = Self.transportFindings(status)
        guard status.status == 200, let said = try? JSONDecoder().decode(StatusPHP.self, from: Data(status.body)), said.installed == true else {
            return (nil, findings, nil)
        }
        let cloud = Cloud(
            product: said.productname ?? said.product, version: said.versionstring ?? said.version, edition: said.edition,
            maintenance: said.maintenance == true, upgradePending: said.needsDbUpgrade == true)
        findings += Self.cloudFindings(status, cloud: cloud)
        // The data directory must not be served: these files are in it.
        for path in ["/data/.ocdata", "/data/htaccesstest.txt"] {
            if let answer = try? await client.send(HTTPRequest(url: base + path)), answer.status == 200 {
                findings.append(
                    ServerFinding(
                        "data-directory-exposed", .error, "\(path) is served: the data directory (every user's files) can be read from the web.",
                        nginx: "location ~ ^/(?:data|config|\\.ht) { deny all; }  # or move the data directory out of the web root",
                        apache: "the shipped .htaccess with AllowOverride All, or move the data directory out of the web root"))
                break
            }
        }
        return (cloud, findings, nil)
    }

    /// status.php's fields Vigil reads (ownCloud, Nextcloud and OpenCloud name them alike).
    struct StatusPHP: Decodable {
        var installed: Bool?
        var maintenance: Bool?
        var needsDbUpgrade: Bool?
        var version: String?
        var versionstring: String?
        var edition: String?
        var productname: String?
        var product: String?
    }

    /// HSTS and versions in headers: any https server.
    static func transportFindings(_ answer: HTTPResponse) -> [ServerFinding] {
        var findings: [ServerFinding] = []
        let hsts = "add_header Strict-Transport-Security \"max-age=15552000; includeSubDomains\" always;"
        let hstsApache = "Header always set Strict-Transport-Security \"max-age=15552000; includeSubDomains\""
        if let value = answer.header("Strict-Transport-Security") {
            let maxAge = value.split(separator: ";").compactMap { part -> Int? in
                let pair = part.split(separator: "=", maxSplits: 1).map { String($0.filter { $0 != " " && $0 != "\t" && $0 != "\"" }) }
                return pair.count == 2 && pair[0].lowercased() == "max-age" ? Int(pair[1]) : nil
            }.first
            if (maxAge ?? 0) < 15_552_000 {
                findings.append(
                    ServerFinding(
                        "hsts-short", .warning, "HSTS's max-age is \(maxAge.map(String.init) ?? "missing"): under 180 days.", nginx: hsts, apache: hstsApache))
            }
        } else {
            findings.append(
                ServerFinding(
                    "no-hsts", .warning, "No Strict-Transport-Security header: a first visit over http can be kept on http by a man in the middle.",
                    nginx: hsts, apache: hstsApache))
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

    /// What a cloud's own setup checks ask for (the admin overview of ownCloud and Nextcloud).
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
