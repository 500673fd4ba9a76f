import Foundation
import Synchronization

/// Impersonates an ownCloud/OpenCloud server, with the scenario's behaviour in front.
public final class CloudResponder: Sendable {
    /// The scenario whose behaviour is played.
    public let scenario: Scenario
    /// OAuth2 and OpenID Connect.
    public let oidc: OIDCProvider
    /// Nextcloud's Login Flow v2, when the scenario's product is Nextcloud.
    public let loginFlow: NextcloudLoginFlow?
    /// status.php's answer for the scenario's product, made once (the endpoint clients poll most).
    let statusBytes: [UInt8]
    /// Every user's files, changed by uploads for the run.
    let files = SimulatedFiles()
    let clock: any SimulatorClock
    /// What the responder remembers between requests (its own extensions read it too).
    struct State {
        /// `{https:N}` and `{http:N}` base URLs, known once the listeners run.
        var bases: [String: String] = [:]
        /// When each behaviour's window (by its index) began: at the first request it saw.
        var windowStarts: [Int: Date] = [:]
        var authorizationsSeen: [String: Int] = [:]
        var apmGeneration = 1
        var apmRequests = 0
        /// ``passwordSearch``, once made.
        var passwordSearch: CredentialSearch?
        /// ``credentialSearch()``'s last search and the count of issued secrets it was made for.
        var cachedSearch: (count: Int, search: CredentialSearch)?
    }
    let state = Mutex(State())

    /// A responder for `scenario`, its OpenID Connect provider using the scenario's faults and users and `clock`.
    public init(scenario: Scenario, clock: any SimulatorClock = SystemSimulatorClock()) {
        self.scenario = scenario
        self.clock = clock
        self.oidc = OIDCProvider(faults: scenario.oidcFaults, users: scenario.effectiveUsers, clock: clock)
        let flowUser = scenario.client?.user ?? scenario.effectiveUsers.keys.sorted().first ?? "alice"
        self.loginFlow = scenario.effectiveProduct == "Nextcloud" ? NextcloudLoginFlow(plan: scenario.loginFlow ?? LoginFlowPlan(), user: flowUser) : nil
        self.statusBytes = Array(Self.status(maintenance: false, product: scenario.effectiveProduct, version: scenario.serverSetup?.version).utf8)
        self.proxyPasswords = (scenario.proxy?.proxies ?? []).map { _ in "proxy-" + UUID().uuidString.lowercased() }
        self.userSecrets = scenario.effectiveUsers.sorted { $0.key < $1.key }.flatMap { user, password in
            [
                PlantedSecret(what: "the password of \(user)", value: password),
                PlantedSecret(what: "the Basic credentials of \(user)", value: Data("\(user):\(password)".utf8).base64EncodedString()),
            ]
        }
    }

    /// What a client must never write to a log or a file: the test users' passwords and every
    /// code, token and verifier the provider issued or received so far.
    public func plantedSecrets() -> [PlantedSecret] {
        userSecrets + accessSecrets + proxySecrets + oidc.issuedSecrets() + (loginFlow?.issuedSecrets() ?? [])
    }

    /// The password of each of the scenario's proxies (``ProxyPlan``; proxy 1's first), fresh for
    /// each run: a proxy's password belongs to that proxy alone.
    public let proxyPasswords: [String]

    /// Proxy `number`'s password and its Basic form.
    func proxySecrets(of number: Int) -> [PlantedSecret] {
        guard proxyPasswords.indices.contains(number - 1) else { return [] }
        let password = proxyPasswords[number - 1]
        return [
            PlantedSecret(what: "the password of proxy \(number)", value: password),
            PlantedSecret(what: "the Basic credentials of proxy \(number)", value: Data("\(ProxyPlan.user):\(password)".utf8).base64EncodedString()),
        ]
    }

    /// Every proxy's password and its Basic form: never to a host, a log or a file.
    private var proxySecrets: [PlantedSecret] { proxyPasswords.indices.flatMap { proxySecrets(of: $0 + 1) } }

    /// The access proxy's service token values (a credential like a password).
    private var accessSecrets: [PlantedSecret] {
        scenario.behaviours.flatMap { ($0.headers ?? [:]).sorted { $0.key < $1.key } }.map {
            PlantedSecret(what: "the access header \($0.key)", value: $0.value)
        }
    }

    /// The access proxy's header names, lower-cased (what the journal looks for).
    var accessHeaderNames: [String] { scenario.behaviours.flatMap { ($0.headers ?? [:]).keys.map { $0.lowercased() } }.sorted() }

    /// The test users' passwords and their Basic form.
    private let userSecrets: [PlantedSecret]

    /// The search for the test users' passwords alone (made once, on first use: they do not change).
    var passwordSearch: CredentialSearch {
        state.withLock { state in
            if let search = state.passwordSearch { return search }
            let search = CredentialSearch(planted: userSecrets)
            state.passwordSearch = search
            return search
        }
    }
    /// Whether `request` carries a test user's password anywhere: its target, any header's value
    /// (the Authorization header too), or its body.
    func carriesPassword(_ request: SimulatedRequest) -> Bool {
        let search = passwordSearch
        if search.find(in: Array(request.target.utf8)) != nil || search.find(in: request.body) != nil { return true }
        return request.headers.values.contains { search.find(in: Array($0.utf8)) != nil }
    }

    /// Whether `request` carries the scenario's proxy password anywhere (``ProxyPlan``).
    func carriesProxyPassword(_ request: SimulatedRequest) -> Bool {
        guard !proxyPasswords.isEmpty else { return false }
        let search = CredentialSearch(planted: proxySecrets)
        if search.find(in: Array(request.target.utf8)) != nil || search.find(in: request.body) != nil { return true }
        return request.headers.values.contains { search.find(in: Array($0.utf8)) != nil }
    }

    /// The search for every planted secret, made again only when the provider issued a new one
    /// (it is asked on every request).
    func credentialSearch() -> CredentialSearch {
        let count = oidc.issuedSecretCount + (loginFlow?.issuedSecretCount ?? 0)
        let cached = state.withLock { state -> CredentialSearch? in
            guard let cached = state.cachedSearch, cached.count == count else { return nil }
            return cached.search
        }
        if let cached { return cached }
        let search = CredentialSearch(planted: plantedSecrets())
        state.withLock { $0.cachedSearch = (count, search) }
        return search
    }

    /// Tells the responder where each listener runs: key `https:1`, value `https://127.0.0.1:8443`.
    public func setBase(_ key: String, _ url: String) {
        state.withLock { $0.bases[key] = url }
    }

    /// As ``setBase(_:_:)``, unless a listener set it already (an in-process answer before or
    /// beside a run names the listener's URL, never a made-up one).
    func setBaseUnlessSet(_ key: String, _ url: String) {
        state.withLock { state in
            if state.bases[key] == nil { state.bases[key] = url }
        }
    }

    /// `template` with the running listeners' URLs in place of `{https:1}`, `{http:1}`,
    /// `{proxy:1}` and the like (what a scenario's settings name).
    public func resolved(_ template: String) -> String { resolve(template, path: "") }

    func resolve(_ template: String, path: String) -> String {
        let text = state.withLock { state in
            var text = template
            for (key, url) in state.bases {
                text = text.replacingOccurrences(of: "{\(key)}", with: url)
                // {host:N}: host N's https authority (address:port), for URLs with user information.
                if key.hasPrefix("https:"), let authority = url.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first {
                    text = text.replacingOccurrences(of: "{host:\(key.dropFirst(6))}", with: String(authority))
                }
            }
            return text
        }
        return text.replacingOccurrences(of: "{path}", with: path)
    }

    /// The answer to `request`; ``SimulatedResponse/fault`` says whether the scenario's fault
    /// gave it (its behaviour, or its OpenID Connect provider's faults), and
    /// ``SimulatedResponse/authenticatedUser`` whom the server authenticated.
    public func respond(to request: SimulatedRequest) -> SimulatedResponse {
        // The scenario's proxy auto-config file, on host 1's plain HTTP (where such files live).
        if let pac = scenario.proxy?.pac, request.scheme == "http", request.host == 1, request.path == "/proxy.pac" {
            return SimulatedResponse(200, [("Content-Type", "application/x-ns-proxy-autoconfig")], body: resolve(pac, path: ""))
        }
        var response = answer(request)
        // A web server's own headers: on every https answer, the scenario's faults' too.
        if request.scheme == "https", let setup = scenario.serverSetup { response.headers += setup.headers }
        return response
    }

    func answer(_ request: SimulatedRequest) -> SimulatedResponse {
        if let fault = fault(to: request) { return fault }
        var path = request.path
        // Targets of same-host redirects are served as the path after their prefix.
        for prefix in Self.sameHostRedirectTargets where path.hasPrefix(prefix) { path.removeFirst(prefix.count - 1) }
        path = Self.droppingHop(path)
        var response = cloud(request, path: path)
        if scenario.oidcFaults != nil, Self.tokenEndpoints.contains(where: { path.hasPrefix($0) }) { response.fault = true }
        // A login flow the scenario plays a fault with: its endpoints are the fault.
        if scenario.loginFlow != nil, path.hasPrefix("/login/v2") || path.hasPrefix("/index.php/login/v2") { response.fault = true }
        return response
    }

    /// The answer the scenario's behaviours give `request` (the first that answers, marked
    /// ``SimulatedResponse/fault``), or nil when they let it through to the server.
    public func fault(to request: SimulatedRequest) -> SimulatedResponse? {
        for (index, one) in scenario.behaviours.enumerated() where one.kind != .normal {
            if var response = behaviour(one, index: index, request) {
                response.fault = true
                return response
            }
        }
        return nil
    }

    /// The OAuth2 and OpenID Connect endpoints (absent from a Basic-only server).
    static let tokenEndpoints = ["/.well-known/openid-configuration", "/.well-known/webfinger", "/index.php/apps/oauth2/"]

    static let sameHostRedirectTargets = ["/moved/", "/loop/done/"]

    /// `/hop/12/status.php` becomes `/status.php` (a redirect chain's hops); other paths stay.
    static func droppingHop(_ path: String) -> String {
        guard path.hasPrefix("/hop/") else { return path }
        let rest = path.utf8.dropFirst(5)
        let digits = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !digits.isEmpty else { return path }
        return String(Substring(rest[digits.endIndex...]))
    }

    // MARK: - The cloud server

    func cloud(_ request: SimulatedRequest, path: String) -> SimulatedResponse {
        // A server offering only Basic has no OAuth2 app and no OpenID Connect provider.
        if !(scenario.authSchemes ?? ["bearer"]).contains("bearer"), Self.tokenEndpoints.contains(where: { path.hasPrefix($0) }) {
            return notFound()
        }
        switch (request.method, path) {
        case ("GET", "/status.php"), ("HEAD", "/status.php"):
            return SimulatedResponse(200, Self.jsonHeaders, bytes: statusBytes)
        case ("GET", "/ocs/v2.php/cloud/capabilities"), ("GET", "/ocs/v1.php/cloud/capabilities"):
            return json(200, Self.capabilities.replacingOccurrences(of: "ownCloud", with: scenario.effectiveProduct))
        case ("GET", "/.well-known/caldav"), ("GET", "/.well-known/carddav"), ("PROPFIND", "/.well-known/caldav"), ("PROPFIND", "/.well-known/carddav"):
            // The service discovery redirects the clouds' .htaccess and nginx examples set up.
            return scenario.serverSetup?.wellKnown == false ? notFound() : SimulatedResponse(301, [("Location", "/remote.php/dav/")])
        case ("GET", "/.well-known/nodeinfo") where scenario.effectiveProduct == "Nextcloud" && scenario.serverSetup?.wellKnown != false:
            return json(200, #"{"links":[]}"#)
        case ("GET", "/data/.ocdata"), ("GET", "/data/htaccesstest.txt"):
            // A data directory in the web root, served: every user's files readable by anyone.
            guard scenario.serverSetup?.dataDirectoryServed == true else { return notFound() }
            return SimulatedResponse(
                200, [("Content-Type", "text/plain")],
                body: path.hasSuffix(".txt")
                    ? "This is used for testing whether htaccess is properly enabled to disallow access from the outside. This file can be safely removed.\n"
                    : "")
        case ("GET", "/.well-known/openid-configuration"):
            let plain = state.withLock { $0.bases["http:1"] }
            return json(200, oidc.discovery(issuer: providerIssuer(for: request), plainBase: plain))
        case ("GET", "/.well-known/webfinger"):
            var issuer = providerIssuer(for: request)
            if oidc.faults.webfingerPlainHTTP == true { issuer = issuer.replacingOccurrences(of: "https://", with: "http://") }
            if oidc.faults.webfingerDisagrees == true { issuer = resolve("{https:3}", path: "") }
            return oidc.webfinger(resource: request.query["resource"], issuer: issuer)
        case ("GET", "/index.php/apps/oauth2/jwks"):
            return json(200, oidc.jwks())
        case ("POST", "/index.php/apps/oauth2/register"):
            return oidc.register(body: request.body)
        case ("GET", "/index.php/apps/oauth2/authorize"):
            return oidc.authorize(query: request.query)
        case ("POST", "/index.php/apps/oauth2/api/v1/token"):
            return oidc.token(form: OIDCProvider.form(String(decoding: request.body, as: UTF8.self)), issuer: issuer(for: request))
        case ("POST", "/index.php/apps/oauth2/revoke"):
            return oidc.revoke(form: OIDCProvider.form(String(decoding: request.body, as: UTF8.self)))
        case ("GET", "/index.php/apps/oauth2/userinfo"):
            guard let user = authenticatedUser(request) else { return unauthorized() }
            let subject = oidc.subject(for: user)
            var answer = json(
                200,
                subject == user ? #"{"sub":"\#(user)","email":"\#(user)@example.test","preferred_username":"\#(user)"}"# : #"{"sub":"\#(subject)"}"#)
            answer.authenticatedUser = user
            return answer
        case ("GET", "/ocs/v2.php/cloud/user"), ("GET", "/ocs/v1.php/cloud/user"):
            // OCS v1 says 100 where v2 says 200, as ownCloud 10 does (desktop clients ask v1).
            guard let user = authenticatedUser(request) else { return unauthorized() }
            let code = path.hasPrefix("/ocs/v1.php") ? 100 : 200
            var answer = json(
                200,
                #"{"ocs":{"meta":{"status":"ok","statuscode":\#(code)},"data":{"id":"\#(user)","display-name":"\#(user.capitalized)","email":"\#(user)@example.test"}}}"#
            )
            answer.authenticatedUser = user
            return answer
        default:
            break
        }
        if let loginFlow, let answer = nextcloud(loginFlow, request, path: path) { return answer }
        if let answer = dav(request, path: path) { return answer }
        return notFound()
    }

    /// Nextcloud's Login Flow v2 and app passwords (with or without the `/index.php` prefix).
    func nextcloud(_ flow: NextcloudLoginFlow, _ request: SimulatedRequest, path: String) -> SimulatedResponse? {
        let route = path.hasPrefix("/index.php/") ? String(path.dropFirst("/index.php".count)) : path
        switch (request.method, route) {
        case ("POST", "/login/v2"):
            let origin = issuer(for: request)
            return flow.start(origin: origin, pollBase: flow.plan.pollHost.map { resolve("{https:\($0)}", path: "") } ?? origin)
        case ("GET", _) where route.hasPrefix("/login/v2/flow/"):
            return flow.loginPage(token: String(route.dropFirst("/login/v2/flow/".count)))
        case ("POST", "/login/v2/poll"):
            return flow.poll(form: OIDCProvider.form(String(decoding: request.body, as: UTF8.self)))
        case ("DELETE", "/ocs/v2.php/core/apppassword"), ("DELETE", "/ocs/v1.php/core/apppassword"):
            guard let (user, password) = Self.basicCredentials(request) else { return unauthorized() }
            var answer = flow.revoke(basicUser: user, password: password)
            if answer.status == 200 { answer.authenticatedUser = user }
            return answer
        default:
            return nil
        }
    }

    /// The user and password of a request's Basic credentials, if it has any.
    static func basicCredentials(_ request: SimulatedRequest) -> (String, String)? {
        guard let header = request.headers["authorization"], header.lowercased().hasPrefix("basic "),
            let decoded = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// The issuer the server names: the provider's host (``OIDCProvider/Faults/providerHost``)
    /// when the login provider lives elsewhere, else the server itself.
    func providerIssuer(for request: SimulatedRequest) -> String {
        if let host = oidc.faults.providerHost, host != request.host { return resolve("{https:\(host)}", path: "") }
        return issuer(for: request)
    }

    /// The issuer: the https URL the request was sent to (its Host), as a server configured with
    /// its own URL announces it; the host's address and port when the Host is missing or odd.
    func issuer(for request: SimulatedRequest) -> String {
        if let host = request.headers["host"], !host.isEmpty, host.count < 256,
            host.allSatisfy({ $0.isLetter || $0.isNumber || ".-:[]".contains($0) })
        {
            return "https://" + host.lowercased()
        }
        return resolve("{https:\(request.host)}", path: "")
    }

    /// The user named by valid Basic credentials or a valid Bearer token, if any.
    func authenticatedUser(_ request: SimulatedRequest) -> String? {
        let schemes = scenario.authSchemes ?? ["basic", "bearer"]
        if let header = request.headers["authorization"], header.lowercased().hasPrefix("bearer "), schemes.contains("bearer") {
            return oidc.user(bearer: String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces))
        }
        guard schemes.contains("basic"), let (user, password) = Self.basicCredentials(request) else { return nil }
        if let loginFlow, let owner = loginFlow.user(basicUser: user, password: password) { return owner }
        return scenario.effectiveUsers[user] == password ? user : nil
    }

    func status(maintenance: Bool) -> String {
        Self.status(maintenance: maintenance, product: scenario.effectiveProduct, version: scenario.serverSetup?.version)
    }

    /// status.php's JSON, the one definition of it, as each product writes it; `version` in
    /// place of the product's usual one (OpenCloud says its own in `productversion`).
    static func status(maintenance: Bool, product: String = "ownCloud", version: String? = nil) -> String {
        switch product {
        case "Nextcloud":
            let version = version ?? "30.0.2"
            return
                #"{"installed":true,"maintenance":\#(maintenance),"needsDbUpgrade":false,"version":"\#(version).2","versionstring":"\#(version)","edition":"","productname":"Nextcloud","extendedSupport":false}"#
        case "OpenCloud":
            return
                #"{"installed":true,"maintenance":\#(maintenance),"needsDbUpgrade":false,"version":"10.11.0.0","versionstring":"10.11.0","edition":"Community","productname":"OpenCloud","product":"OpenCloud","productversion":"\#(version ?? "2.0.0")"}"#
        default:
            let version = version ?? "10.15.0"
            return
                #"{"installed":true,"maintenance":\#(maintenance),"needsDbUpgrade":false,"version":"\#(version).2","versionstring":"\#(version)","edition":"Community","productname":"ownCloud","product":"ownCloud"}"#
        }
    }

    static let jsonHeaders = [("Content-Type", "application/json; charset=utf-8")]

    func json(_ status: Int, _ body: String) -> SimulatedResponse {
        SimulatedResponse(status, [("Content-Type", "application/json; charset=utf-8")], body: body)
    }

    func notFound() -> SimulatedResponse {
        SimulatedResponse(404, [("Content-Type", "text/html; charset=utf-8")], body: "<html><body><h1>404 Not Found</h1></body></html>")
    }

    func unauthorized() -> SimulatedResponse {
        let schemes = scenario.authSchemes ?? ["basic", "bearer"]
        var headers: [(String, String)] = []
        let realm = scenario.effectiveProduct
        if schemes.contains("basic") { headers.append(("WWW-Authenticate", #"Basic realm="\#(realm)", charset="UTF-8""#)) }
        if schemes.contains("bearer") { headers.append(("WWW-Authenticate", #"Bearer realm="\#(realm)""#)) }
        headers.append(("Content-Type", "application/xml; charset=utf-8"))
        return SimulatedResponse(401, headers, body: Self.davException("Sabre\\DAV\\Exception\\NotAuthenticated", "No public access to this resource."))
    }

    func redirect(_ status: Int, to location: String) -> SimulatedResponse {
        SimulatedResponse(
            status, [("Location", location), ("Content-Type", "text/html; charset=utf-8")],
            body: "<html><body>Moved to <a href=\"\(location)\">\(location)</a></body></html>")
    }

    static func davException(_ exception: String, _ message: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8"?>
        <d:error xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns"><s:exception>\(exception)</s:exception><s:message>\(message)</s:message></d:error>
        """
    }

    /// Every user's small file tree (the root's children), as an ownCloud 10 server lists it.
    static let fileTree: [(name: String, isFolder: Bool, contents: String)] = [
        ("Documents/", true, ""), ("Photos/", true, ""),
        ("welcome.txt", false, "Welcome to the Vigil host simulator: these files are test data, served over loopback.\n"),
    ]

    static let capabilities =
        #"{"ocs":{"meta":{"status":"ok","statuscode":200},"data":{"version":{"major":10,"minor":15,"micro":0,"string":"10.15.0","edition":"Community","product":"ownCloud"},"capabilities":{"core":{"status":{"installed":true,"maintenance":false,"productname":"ownCloud"}},"dav":{"chunking":"1.0"},"files":{"bigfilechunking":true}}}}}"#

    static let loginPage = """
        <!DOCTYPE html><html><head><title>Sign in</title></head><body><form method="post" action="/apm/login"><input name="username"><input name="password" type="password"><button>Sign in</button></form></body></html>
        """
}
