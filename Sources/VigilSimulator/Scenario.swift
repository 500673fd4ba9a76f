import Foundation

/// One simulated situation, read from a JSON fixture in mitm-fixtures/ (format: its README).
public struct Scenario: Sendable, Hashable, Codable {
    /// What a correct client does when it meets this scenario.
    public enum Outcome: String, Sendable, Hashable, Codable, CaseIterable {
        /// Refuses to connect or send credentials, without asking.
        case refuse
        /// Stops and asks the user to approve or reject the certificate.
        case askCertificate = "ask-certificate"
        /// Stops and asks the user to approve the redirect.
        case askRedirect = "ask-redirect"
        /// Logs in (possibly after retrying).
        case login
        /// Reports the server's error to the user.
        case reportError = "report-error"
    }

    /// What the scenario stands for elsewhere.
    public struct Reference: Sendable, Hashable, Codable {
        /// The badssl.com host that shows the same thing, if any.
        public var badssl: String?
        /// The ownCloud SDK's name for the simulation, if any.
        public var seeds: String?
        /// The attack or failure it represents.
        public var represents: String
    }

    /// How the HTTP side behaves.
    public struct Behaviour: Sendable, Hashable, Codable {
        /// The kinds of behaviour.
        public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
            /// The server behaves normally.
            case normal
            /// Every request answered 404.
            case notFound = "not-found"
            /// 404 for `seconds` from the first request, then normal.
            case notFoundWindow = "not-found-window"
            /// An access-policy manager: requests without its cookie are redirected to its login,
            /// which sets the cookie. `seconds`: for that long from the first request they are
            /// redirected to a bogus endpoint instead (the seeds' recovering-apm). `recovering`:
            /// the cookie is dropped once, mid-session.
            case apm
            /// Downloads (GET on WebDAV) answered 500.
            case rejectDownloads = "reject-downloads"
            /// The first `count` requests with a new Authorization value get 401.
            case authRace = "auth-race"
            /// status.php says maintenance; WebDAV answers 503 with a Sabre exception.
            case maintenance
            /// Requests are redirected with `status` to `target` (templates {https:N}, {http:N}).
            case redirect
            /// `hops` redirects on the same host before the real answer.
            case redirectChain = "redirect-chain"
            /// Two paths redirect to each other.
            case redirectLoop = "redirect-loop"
            /// PROPFIND is answered with an HTML login page and 200.
            case loginPage = "login-page"
            /// status.php is answered with `status` (default 200) and `body`.
            case statusBody = "status-body"
            /// status.php's answer stops halfway and the connection closes.
            case truncated
            /// status.php announces a terabyte.
            case oversized
            /// status.php is never answered (the connection stays open).
            case silent
            /// status.php is answered one byte every `seconds` (default 1): a slow-read attack
            /// or a dying link; the client must give up at its timeout.
            case trickle
            /// An access proxy (Cloudflare Access) in front of host 1: a request without every one of
            /// `headers` (the service token) is redirected to its login page on host 2
            /// (`/cdn-cgi/access/login`).
            case accessProxy = "access-proxy"
        }
        /// Which behaviour.
        public var kind: Kind
        /// The HTTP status: of a redirect (default 302), of `status-body` (default 200), or answered in `not-found-window`.
        public var status: Int?
        /// Where `redirect` points (a URL template, a path or a relative reference).
        public var target: String?
        /// For `redirect-chain`: how many redirects (default 30).
        public var hops: Int?
        /// The window from the first request, in seconds (`not-found-window`, `apm`), or the wait per byte (`trickle`).
        public var seconds: Double?
        /// For `auth-race`: how many requests get 401 (default 4).
        public var count: Int?
        /// For `apm`: the cookie is dropped once, mid-session.
        public var recovering: Bool?
        /// Only requests on this scheme are redirected (`http` for an upgrade).
        public var scheme: String?
        /// For `status-body`: the body of status.php.
        public var body: String?
        /// For `access-proxy`: the service token's header fields and values.
        public var headers: [String: String]?

        /// A behaviour of `kind` with every parameter unset.
        public init(kind: Kind) { self.kind = kind }
    }

    /// The scenario's name (unique in a fixtures directory).
    public var name: String
    /// A short description of the scenario.
    public var summary: String
    /// What a correct client does.
    public var outcome: Outcome
    /// What the scenario stands for elsewhere.
    public var reference: Reference
    /// testcerts case served on each address (`127.0.0.1`...); missing addresses serve the valid one.
    public var certificates: [String: String]?
    /// Oldest and newest TLS version offered ("1.0", "1.1", "1.2", "1.3").
    public var tlsVersions: [String]?
    /// The HTTPS hosts offer HTTP/2 by ALPN (`h2`, then `http/1.1`): a client that prefers it is
    /// judged on the protocol it uses. Not with a man in the middle (the interceptor speaks HTTP/1.1).
    public var http2: Bool?
    /// How the HTTP side behaves.
    public var behaviour: Behaviour
    /// Further behaviours active at once (the seeds' list of active simulations: an APM and a
    /// 404 storm on one host), tried in order after ``behaviour``: the first that answers a
    /// request answers it.
    public var also: [Behaviour]?
    /// ``behaviour`` and ``also``, in the order they are tried.
    public var behaviours: [Behaviour] { [behaviour] + (also ?? []) }
    /// Forward proxies the client goes through, and a PAC file (issue 33).
    public var proxy: ProxyPlan?
    /// OpenID Connect faults to play (all off when absent).
    public var oidcFaults: OIDCProvider.Faults?
    /// Schemes offered in `WWW-Authenticate` on 401 (`basic`, `bearer`); both when absent.
    public var authSchemes: [String]?
    /// Host 1 is a man in the middle: a proxy presenting this scenario's certificate that records
    /// what it sees (journal entries with `mitm`) and forwards every request over a second TLS
    /// connection to the genuine host (same address, its own port, its normal certificate).
    public var mitm: Bool?
    /// A revocation PKI minted for this run (``RevocationPlan``): every HTTPS host then serves
    /// a leaf from it instead of a testcerts case.
    public var revocation: RevocationPlan?
    /// Mutual TLS: hosts that ask for a client certificate.
    public var clientAuth: ClientAuthPlan?
    /// Test users and passwords; the defaults (``Scenario/defaultUsers``) when absent.
    public var users: [String: String]?
    /// How `vigil simulate` plays the user (decisions, start URL, settings); defaults when absent.
    public var client: ScenarioClient?
    /// The product the server says it is (status.php's `productname`): `ownCloud` when absent,
    /// `Nextcloud` (with Login Flow v2, ``loginFlow``) or `OpenCloud`.
    public var product: String?
    /// A Nextcloud server's Login Flow v2 (a granting one when absent).
    public var loginFlow: LoginFlowPlan?
    /// How the https hosts are set up (suites, headers, `.well-known`, data directory, version).
    public var serverSetup: ServerSetupPlan?
    /// What `vigil server check` must find on host 1.
    public var serverCheck: ServerCheckExpectation?

    /// The products the simulator can play.
    public static let products = ["ownCloud", "Nextcloud", "OpenCloud"]
    /// ``product``, else `ownCloud`.
    public var effectiveProduct: String { product ?? "ownCloud" }

    /// alice and bob, with public test passwords.
    public static let defaultUsers = ["alice": "alice-test-password", "bob": "bob-test-password"]
    /// `users`, else ``defaultUsers``.
    public var effectiveUsers: [String: String] { users ?? Self.defaultUsers }
}

extension Scenario {
    /// Parses and checks a fixture; errors name the file, the field and the reason.
    public static func load(path: String) throws -> Scenario {
        let file = (path as NSString).lastPathComponent
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SimulatorError(.malformedFixture, "\(file): cannot be read.")
        }
        return try decode(data, file: file)
    }

    /// Parses and checks a fixture's bytes; `file` is how errors name it.
    static func decode(_ data: Data, file: String) throws -> Scenario {
        let scenario: Scenario
        do {
            scenario = try JSONDecoder().decode(Scenario.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw SimulatorError(.malformedFixture, "\(file): field \(fieldPath(context.codingPath + [key])) is missing.")
        } catch let DecodingError.typeMismatch(type, context) {
            throw SimulatorError(.malformedFixture, "\(file): field \(fieldPath(context.codingPath)) should be \(typeName(type)).")
        } catch let DecodingError.valueNotFound(type, context) {
            throw SimulatorError(.malformedFixture, "\(file): field \(fieldPath(context.codingPath)) is null; it should be \(typeName(type)).")
        } catch let DecodingError.dataCorrupted(context) {
            let field = context.codingPath.isEmpty ? "the document" : "field \(fieldPath(context.codingPath))"
            let allowed = allowedValues(for: context.codingPath.last?.stringValue)
            throw SimulatorError(.malformedFixture, "\(file): \(field) is invalid (\(context.debugDescription))\(allowed).")
        } catch {
            throw SimulatorError(.malformedFixture, "\(file): \(error).")
        }
        try scenario.check(file: file)
        return scenario
    }

    func check(file: String) throws {
        func fail(_ field: String, _ reason: String) -> SimulatorError {
            SimulatorError(.malformedFixture, "\(file): field \(field) \(reason).")
        }
        guard name.range(of: #"^[a-z0-9][a-z0-9-]*$"#, options: .regularExpression) != nil else {
            throw fail("name", "must be lower-case letters, digits and dashes")
        }
        for (user, password) in users ?? [:] where password.count < 8 || user.isEmpty || user.contains(":") {
            throw fail(
                "users",
                "gives \(user.isEmpty ? "a user" : user) a password under 8 characters or a name with ':' (a short password could not be told apart in logs and files)"
            )
        }
        if let schemes = authSchemes, schemes.isEmpty || !schemes.allSatisfy(["basic", "bearer"].contains) {
            throw fail("authSchemes", "must list basic and/or bearer")
        }
        if http2 == true, mitm == true { throw fail("http2", "cannot be offered by a man in the middle (the interceptor speaks HTTP/1.1)") }
        if let versions = tlsVersions {
            let known = ["1.0", "1.1", "1.2", "1.3"]
            guard versions.count == 2, versions.allSatisfy(known.contains) else { throw fail("tlsVersions", "must be [oldest, newest] from \(known)") }
        }
        if revocation != nil, certificates != nil || mitm == true {
            throw fail("revocation", "mints every host's certificate: it goes with neither certificates nor mitm")
        }
        for address in (certificates ?? [:]).keys where !SimulatorAddress.isLoopback(address) {
            throw fail("certificates", "names \(address), which is not a loopback address")
        }
        if let plan = clientAuth {
            guard !plan.effectiveHosts.isEmpty, plan.effectiveHosts.allSatisfy({ (1...3).contains($0) }) else {
                throw fail("clientAuth.hosts", "must list hosts 1, 2 or 3")
            }
            if let ca = plan.ca, ca.isEmpty || ca.contains("/") || ca.hasPrefix(".") {
                throw fail("clientAuth.ca", "names \(ca), which is not a testcerts case")
            }
        }
        if let client {
            if let start = client.start, !(start.hasPrefix("{https:") || start.hasPrefix("{http:")) {
                throw fail("client.start", "must start with {https:N} or {http:N}")
            }
            let asks = outcome == .askCertificate || outcome == .askRedirect
            if asks, !(client.approve ?? []).isEmpty, client.then == nil {
                throw fail("client.then", "is required when the user approves what the client asks: the outcome it must reach after the approval")
            }
            if !asks, client.then != nil {
                throw fail(
                    "client.then",
                    "applies only to ask-certificate and ask-redirect; with \(outcome.rawValue), the outcome itself is reached after any approval")
            }
            for (name, host) in client.hosts ?? [:] {
                let label = #"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"#
                let isName = name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { $0.range(of: label, options: .regularExpression) != nil }
                let isAddress = name.split(separator: ".").allSatisfy { Int($0) != nil }
                guard isName, !isAddress, (1...3).contains(host) else {
                    throw fail("client.hosts", "maps \(name) to \(host): a DNS name (lower-case labels, not an address) to host 1, 2 or 3")
                }
            }
            if let timeout = client.timeout, !(0.1...600).contains(timeout) {
                throw fail("client.timeout", "must be from 0.1 to 600 seconds")
            }
            if let user = client.user, effectiveUsers[user] == nil {
                throw fail("client.user", "names \(user), who is not one of the scenario's users")
            }
            if client.account != nil, client.start != nil || client.hosts != nil || outcome == .askRedirect {
                throw fail("client.account", "is an account on host 1 by its address: it goes with neither client.start, client.hosts nor ask-redirect")
            }
            for name in (client.trust ?? []) + [client.account?.certificate].compactMap({ $0 }) where name.isEmpty || name.contains("/") || name.hasPrefix(".")
            {
                throw fail(client.trust?.contains(name) == true ? "client.trust" : "client.account.certificate", "names \(name), which is not a testcerts case")
            }
        }
        for (index, one) in behaviours.enumerated() {
            try one.check(field: index == 0 ? "behaviour" : "also[\(index - 1)]", file: file)
        }
        if let account = client?.account {
            if let method = account.method, method != "openid-connect" { throw fail("client.account.method", "is \(method); allowed: openid-connect") }
            if account.refreshInterrupted == true, account.method != "openid-connect" {
                throw fail("client.account.refreshInterrupted", "goes with method openid-connect")
            }
        }
        if let expected = serverCheck, !["A+", "A", "B", "C", "D", "E", "F"].contains(expected.grade) {
            throw fail("serverCheck.grade", "is \(expected.grade); allowed: A+, A, B, C, D, E, F")
        }
        if serverSetup?.ciphers != nil, mitm == true {
            throw fail("serverSetup.ciphers", "cannot go with mitm (the interceptor chooses its suites itself)")
        }
        if let product, !Self.products.contains(product) {
            throw fail("product", "is \(product); allowed: " + Self.products.joined(separator: ", "))
        }
        if let plan = loginFlow {
            guard effectiveProduct == "Nextcloud" else { throw fail("loginFlow", "goes with product Nextcloud") }
            if let host = plan.pollHost, !(1...3).contains(host) { throw fail("loginFlow.pollHost", "must be 1, 2 or 3") }
        }
    }

    static func fieldPath(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        default: return "\(type)"
        }
    }

    static func allowedValues(for field: String?) -> String {
        switch field {
        case "outcome", "then": return "; allowed: " + Outcome.allCases.map(\.rawValue).joined(separator: ", ")
        case "approve": return "; allowed: " + ScenarioClient.Question.allCases.map(\.rawValue).joined(separator: ", ")
        case "kind": return "; allowed: " + Behaviour.Kind.allCases.map(\.rawValue).joined(separator: ", ")
        default: return ""
        }
    }
}

extension Scenario.Behaviour {
    /// The fields `kind` needs, named as `field` (`behaviour`, `also[0]`) in the error.
    func check(field: String, file: String) throws {
        func fail(_ name: String, _ reason: String) -> SimulatorError {
            SimulatorError(.malformedFixture, "\(file): field \(name) \(reason).")
        }
        switch kind {
        case .redirect:
            guard let status = self.status, [301, 302, 303, 307, 308].contains(status) else {
                throw fail("\(field).status", "must be 301, 302, 303, 307 or 308")
            }
            guard let target = self.target, !target.isEmpty else {
                throw fail("\(field).target", "must be a URL template ({https:N}, {http:N}, {host:N}, {path}), a path or a relative reference")
            }
        case .redirectChain:
            guard let hops = self.hops, (1...100).contains(hops) else { throw fail("\(field).hops", "must be from 1 to 100") }
        case .notFoundWindow:
            guard let seconds = self.seconds, seconds > 0 else { throw fail("\(field).seconds", "must be a positive number") }
        case .authRace:
            guard let count = self.count, count > 0 else { throw fail("\(field).count", "must be a positive integer") }
        case .statusBody:
            guard body != nil else { throw fail("\(field).body", "is required: the body of status.php") }
        case .accessProxy:
            guard let headers, !headers.isEmpty, headers.values.allSatisfy({ $0.count >= 8 }) else {
                throw fail("\(field).headers", "is required: the service token's fields, each value 8 characters or more")
            }
        default:
            break
        }
        if kind == .apm, let seconds, seconds <= 0 { throw fail("\(field).seconds", "must be a positive number") }
    }
}

/// Loopback checks for addresses the simulator binds or names.
public enum SimulatorAddress {
    /// 127.0.0.0/8 or ::1.
    public static func isLoopback(_ address: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 {
            return address == "::1" || withUnsafeBytes(of: v6) { $0.dropLast().allSatisfy { $0 == 0 } && $0.last == 1 }
        }
        return false
    }
}
