import Crypto
import Foundation
import Synchronization

/// The simulator's OAuth2 / OpenID Connect provider: discovery, JWKS, dynamic client
/// registration (RFC 7591), WebFinger, an authorization endpoint that consents for a test user at
/// once (so a browser stand-in completes the flow), and a token endpoint issuing real ES256 JWTs
/// with rotating refresh tokens. Faults are switched on per scenario.
public final class OIDCProvider: Sendable {
    /// Deliberate mistakes a client must catch.
    public struct Faults: Sendable, Hashable, Codable {
        /// The id_token's `iss` is not the issuer.
        public var wrongIssuer: Bool?
        /// The id_token's `aud` is not the client.
        public var wrongAudience: Bool?
        /// The id_token's `nonce` is not the one sent.
        public var badNonce: Bool?
        /// Tokens are signed with a key whose `kid` the JWKS does not list.
        public var unknownKeyID: Bool?
        /// The id_token expired an hour ago.
        public var expiredIDToken: Bool?
        /// A refresh token may be used again (a server that does not rotate).
        public var acceptReusedRefreshToken: Bool?
        /// An authorization request without PKCE is accepted.
        public var acceptMissingPKCE: Bool?
        /// The authorization response carries another `state` than the request's.
        public var stateMismatch: Bool?
        /// The authorization response names another issuer in `iss` (RFC 9207: a mix-up attack).
        public var mixUpIssuer: Bool?
        /// Discovery offers only the `plain` PKCE method, not S256.
        public var noS256: Bool?
        /// The id_token is unsigned, with `alg: none`.
        public var algNone: Bool?
        /// Discovery names a `jwks_uri` over plain http.
        public var jwksOverHTTP: Bool?
        /// Discovery names another issuer than the server it came from.
        public var discoveryIssuerMismatch: Bool?
        /// The token response has no id_token.
        public var missingIDToken: Bool?
        /// Users are named by an opaque subject (`sub` a key such as `u-1`) with no
        /// `preferred_username`, as Google, Azure AD and django-oauth-toolkit name them.
        public var opaqueSubject: Bool?
        /// The provider logs in another test user than the `login_hint` asks for.
        public var anotherUser: Bool?
        /// The login provider lives on host N, not on the server: the server's discovery document
        /// and WebFinger name host N's issuer (as OpenCloud and oCIS with an external IdP do).
        public var providerHost: Int?
        /// WebFinger names the issuer over plain http.
        public var webfingerPlainHTTP: Bool?
        /// WebFinger names host 3's issuer while the discovery document names the provider's.
        public var webfingerDisagrees: Bool?
        /// The token answers carry no refresh token (the access token alone, until it expires).
        public var noRefreshToken: Bool?
        /// Every refresh is refused (`invalid_grant`): the refresh token expired or was revoked.
        public var refreshRefused: Bool?
        /// The provider accepts no loopback redirect URI it was not told of: registration answers
        /// `invalid_redirect_uri`, and the authorization endpoint an error page (as Keycloak does).
        public var redirectNotRegistered: Bool?
        /// Reuse detection (Keycloak's "revoke refresh token", Authelia): a refresh token that
        /// comes back after it was used revokes every token of its family.
        public var revokeFamilyOnReuse: Bool?
    }

    /// The `sub` a user has at this provider: the user name, or an opaque key.
    func subject(for user: String) -> String {
        guard faults.opaqueSubject == true else { return user }
        return "u-\((users.keys.sorted().firstIndex(of: user) ?? 99) + 1)"
    }

    let faults: Faults
    let users: [String: String]
    let clock: any SimulatorClock
    let key = P256.Signing.PrivateKey()
    let rogueKey = P256.Signing.PrivateKey()
    static let keyID = "vigil-simulator-1"
    /// The client id known without registration.
    public static let staticClientID = "vigil-test-client"

    private struct Grant {
        var user: String
        var client: String
        var redirect: String
        var challenge: String?
        var nonce: String?
        var scope: String
    }
    private struct State {
        var clients: [String: [String]] = [OIDCProvider.staticClientID: []]
        var codes: [String: Grant] = [:]
        var refreshTokens: [String: (user: String, client: String, scope: String, used: Bool)] = [:]
        var accessTokens: Set<String> = []
        var revoked: Set<String> = []
        /// Each token's family (the grant it descends from), and each family's tokens.
        var familyOf: [String: String] = [:]
        var families: [String: Set<String>] = [:]
        /// How many times a refresh token came back after it was used.
        var refreshReuses = 0
        /// Every code, token and verifier this provider issued or received, for `vigil simulate`'s
        /// secret scans (nothing here is ever written anywhere).
        var seenSecrets: [PlantedSecret] = []
    }
    private let state = Mutex(State())

    init(faults: Faults?, users: [String: String], clock: any SimulatorClock) {
        self.faults = faults ?? Faults()
        self.users = users
        self.clock = clock
    }

    // MARK: - Endpoints

    /// `plainBase`: the server's plain-http URL, for the jwks_uri of ``Faults/jwksOverHTTP``.
    func discovery(issuer: String, plainBase: String? = nil) -> String {
        json([
            "issuer": faults.discoveryIssuerMismatch == true ? "https://issuer.attacker.invalid" : issuer,
            "authorization_endpoint": "\(issuer)/index.php/apps/oauth2/authorize",
            "token_endpoint": "\(issuer)/index.php/apps/oauth2/api/v1/token",
            "jwks_uri": faults.jwksOverHTTP == true
                ? "\(plainBase ?? issuer.replacingOccurrences(of: "https://", with: "http://"))/index.php/apps/oauth2/jwks"
                : "\(issuer)/index.php/apps/oauth2/jwks",
            "registration_endpoint": "\(issuer)/index.php/apps/oauth2/register",
            "userinfo_endpoint": "\(issuer)/index.php/apps/oauth2/userinfo",
            "revocation_endpoint": "\(issuer)/index.php/apps/oauth2/revoke",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": faults.noS256 == true ? ["plain"] : ["S256"],
            "id_token_signing_alg_values_supported": ["ES256"],
            "subject_types_supported": ["public"],
            "scopes_supported": ["openid", "offline_access", "email", "profile"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
        ])
    }

    func jwks() -> String {
        let raw = key.publicKey.rawRepresentation  // x || y
        return json([
            "keys": [
                [
                    "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": Self.keyID,
                    "x": Self.base64URL(raw.prefix(32)), "y": Self.base64URL(raw.suffix(32)),
                ]
            ]
        ])
    }

    func webfinger(resource: String?, issuer: String) -> SimulatedResponse {
        guard let resource, resource.hasPrefix("acct:") || resource.hasPrefix("https://") else {
            return SimulatedResponse(400, [("Content-Type", "application/json")], body: #"{"error":"invalid_request"}"#)
        }
        return SimulatedResponse(
            200, [("Content-Type", "application/jrd+json")],
            body: json([
                "subject": resource,
                "links": [["rel": "http://openid.net/specs/connect/1.0/issuer", "href": issuer]],
            ]))
    }

    /// RFC 7591: public clients with loopback redirect URIs.
    func register(body: [UInt8]) -> SimulatedResponse {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let redirects = object["redirect_uris"] as? [String], !redirects.isEmpty
        else {
            return error(400, "invalid_client_metadata", "redirect_uris is required")
        }
        guard faults.redirectNotRegistered != true else {
            return error(400, "invalid_redirect_uri", "redirect_uri \(redirects[0]) is not among the client's registered redirect URIs")
        }
        guard redirects.allSatisfy(Self.isLoopbackRedirect) else {
            return error(400, "invalid_redirect_uri", "only loopback redirect URIs (RFC 8252) are accepted")
        }
        let id = "dyn-" + Self.random(12)
        state.withLock { $0.clients[id] = redirects }
        return SimulatedResponse(
            201, [("Content-Type", "application/json")],
            body: json([
                "client_id": id, "client_id_issued_at": Int(clock.now().timeIntervalSince1970),
                "redirect_uris": redirects, "token_endpoint_auth_method": "none",
                "client_name": (object["client_name"] as? String) ?? "",
            ]))
    }

    /// Consents at once for `login_hint` (or the first test user) and redirects with a code.
    func authorize(query: [String: String]) -> SimulatedResponse {
        guard query["response_type"] == "code" else { return error(400, "unsupported_response_type", "only code") }
        guard let client = query["client_id"], let redirect = query["redirect_uri"] else {
            return error(400, "invalid_request", "client_id and redirect_uri are required")
        }
        let registered = state.withLock { $0.clients[client] }
        guard let registered else { return error(400, "unauthorized_client", "unknown client_id") }
        if faults.redirectNotRegistered == true {
            // An error page, never a redirect to an unregistered URI (RFC 6749 section 4.1.2.1).
            return SimulatedResponse(
                400, [("Content-Type", "text/html; charset=utf-8")],
                body: "<html><body><h1>We are sorry...</h1><p>Invalid parameter: redirect_uri</p></body></html>")
        }
        guard registered.isEmpty ? Self.isLoopbackRedirect(redirect) : registered.contains(redirect) else {
            return error(400, "invalid_request", "redirect_uri is not registered for this client")
        }
        let challenge = query["code_challenge"]
        if challenge == nil && faults.acceptMissingPKCE != true {
            return redirectError(redirect, state: query["state"], "invalid_request", "PKCE (code_challenge, S256) is required")
        }
        if challenge != nil && query["code_challenge_method"] != "S256" {
            return redirectError(redirect, state: query["state"], "invalid_request", "code_challenge_method must be S256")
        }
        var user = query["login_hint"].flatMap { users[$0] != nil ? $0 : nil } ?? users.keys.sorted().first ?? "alice"
        if faults.anotherUser == true, let other = users.keys.sorted().first(where: { $0 != user }) { user = other }
        let code = Self.random(24)
        let grant = Grant(user: user, client: client, redirect: redirect, challenge: challenge, nonce: query["nonce"], scope: query["scope"] ?? "openid")
        state.withLock { state in
            state.seenSecrets.append(PlantedSecret(what: "an authorization code", value: code))
            state.codes[code] = grant
        }
        var location = redirect + (redirect.contains("?") ? "&" : "?") + "code=\(code)"
        if let state = query["state"] {
            let sent = faults.stateMismatch == true ? "forged-" + Self.random(12) : state
            location += "&state=" + (sent.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }
        if faults.mixUpIssuer == true {
            location += "&iss=" + ("https://issuer.attacker.invalid".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }
        return SimulatedResponse(302, [("Location", location)])
    }

    func token(form: [String: String], issuer: String) -> SimulatedResponse {
        switch form["grant_type"] {
        case "authorization_code":
            guard let code = form["code"] else { return error(400, "invalid_request", "code is required") }
            if let verifier = form["code_verifier"], verifier.count >= 16 {
                state.withLock { $0.seenSecrets.append(PlantedSecret(what: "a PKCE verifier", value: verifier)) }
            }
            let grant = state.withLock { $0.codes.removeValue(forKey: code) }  // single use
            guard let grant else { return error(400, "invalid_grant", "unknown or used code") }
            guard form["redirect_uri"] == grant.redirect, form["client_id"] == grant.client else {
                return error(400, "invalid_grant", "redirect_uri or client_id differs")
            }
            if let challenge = grant.challenge {
                guard let verifier = form["code_verifier"], Self.base64URL(Data(SHA256.hash(data: Data(verifier.utf8)))) == challenge else {
                    return error(400, "invalid_grant", "code_verifier does not match the code_challenge")
                }
            }
            return issue(user: grant.user, client: grant.client, scope: grant.scope, nonce: grant.nonce, issuer: issuer)
        case "refresh_token":
            guard let refresh = form["refresh_token"] else { return error(400, "invalid_request", "refresh_token is required") }
            let reuse = faults.acceptReusedRefreshToken != true
            let entry = state.withLock { state -> (user: String, client: String, scope: String, used: Bool)? in
                guard let entry = state.refreshTokens[refresh] else { return nil }
                if entry.used, reuse {
                    // A spent token came back: a replay (a stolen copy, or a client that kept it).
                    state.refreshReuses += 1
                    if faults.revokeFamilyOnReuse == true, let family = state.familyOf[refresh] {
                        for token in state.families[family] ?? [] {
                            state.refreshTokens.removeValue(forKey: token)
                            state.accessTokens.remove(token)
                            state.revoked.insert(token)
                        }
                    }
                    return nil
                }
                if reuse { state.refreshTokens[refresh]?.used = true }  // rotation
                return entry
            }
            guard let entry else { return error(400, "invalid_grant", "refresh token unknown or already used") }
            if faults.refreshRefused == true { return error(400, "invalid_grant", "refresh token expired") }
            let family = state.withLock { $0.familyOf[refresh] }
            return issue(user: entry.user, client: entry.client, scope: entry.scope, nonce: nil, issuer: issuer, family: family)
        default:
            return error(400, "unsupported_grant_type", "authorization_code or refresh_token")
        }
    }

    /// RFC 7009: the token (a refresh or an access token) stops working; 200 whether or not it
    /// was known, as the RFC asks.
    func revoke(form: [String: String]) -> SimulatedResponse {
        guard let token = form["token"] else { return error(400, "invalid_request", "token is required") }
        state.withLock { state in
            state.refreshTokens.removeValue(forKey: token)
            state.accessTokens.remove(token)
            state.revoked.insert(token)
        }
        return SimulatedResponse(200, [("Cache-Control", "no-store")])
    }

    /// Whether `token` was revoked (for tests).
    public func wasRevoked(_ token: String) -> Bool {
        state.withLock { $0.revoked.contains(token) }
    }

    /// How many times a spent refresh token was presented again (a replay).
    public var refreshTokenReuses: Int {
        state.withLock { $0.refreshReuses }
    }

    /// Tokens for an account set up before the scenario (`client.account` with a token method):
    /// an access token and a refresh token issued to ``staticClientID`` for `user`, as a login
    /// would have left them. `spent`: the refresh token was already used (an earlier refresh
    /// reached the provider, and the process that sent it was killed before keeping the answer).
    public func seededTokens(user: String, issuer: String, spent: Bool = false) -> (access: String, refresh: String)? {
        let answer = issue(user: user, client: Self.staticClientID, scope: "openid offline_access", nonce: nil, issuer: issuer)
        guard let object = try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any], let access = object["access_token"] as? String,
            let refresh = object["refresh_token"] as? String
        else { return nil }
        if spent { state.withLock { $0.refreshTokens[refresh]?.used = true } }
        return (access, refresh)
    }

    /// How many tokens were revoked (for tests).
    public var revokedCount: Int {
        state.withLock { $0.revoked.count }
    }

    /// Codes, tokens and PKCE verifiers issued or received so far.
    /// How many secrets ``issuedSecrets()`` holds (it only grows).
    var issuedSecretCount: Int {
        state.withLock { $0.seenSecrets.count }
    }

    /// The codes, tokens and PKCE verifiers issued or received so far, as secrets to look for.
    public func issuedSecrets() -> [PlantedSecret] {
        state.withLock { $0.seenSecrets }
    }

    /// The user of a valid access token (a JWT this provider signed and issued, not expired).
    func user(bearer token: String) -> String? {
        let known = state.withLock { $0.accessTokens.contains(token) }
        guard known, let claims = verify(token) else { return nil }
        guard let exp = claims["exp"] as? Double, exp > clock.now().timeIntervalSince1970 else { return nil }
        return claims["sub"] as? String
    }

    // MARK: - Tokens

    func issue(user: String, client: String, scope: String, nonce: String?, issuer: String, family: String? = nil) -> SimulatedResponse {
        let now = Int(clock.now().timeIntervalSince1970)
        let access = sign(
            ["iss": issuer, "sub": user, "aud": client, "iat": now, "exp": now + 3600, "scope": scope, "jti": Self.random(8)], kid: Self.keyID, key: key)
        var idClaims: [String: Any] = [
            "iss": faults.wrongIssuer == true ? "https://attacker.invalid" : issuer,
            "sub": subject(for: user),
            "aud": faults.wrongAudience == true ? "someone-else" : client,
            "iat": now,
            "exp": faults.expiredIDToken == true ? now - 3600 : now + 3600,
        ]
        if faults.opaqueSubject != true {
            idClaims["email"] = "\(user)@example.test"
            idClaims["preferred_username"] = user
        }
        if let nonce { idClaims["nonce"] = faults.badNonce == true ? "not-\(nonce)" : nonce }
        let unknown = faults.unknownKeyID == true
        let idToken = faults.algNone == true ? unsigned(idClaims) : sign(idClaims, kid: unknown ? "unknown-kid" : Self.keyID, key: unknown ? rogueKey : key)
        let refresh = faults.noRefreshToken == true ? nil : Self.random(32)
        let family = family ?? Self.random(8)
        state.withLock { state in
            state.accessTokens.insert(access)
            for token in [access] + (refresh.map { [$0] } ?? []) {
                state.familyOf[token] = family
                state.families[family, default: []].insert(token)
            }
            if let refresh { state.refreshTokens[refresh] = (user, client, scope, false) }
            state.seenSecrets += [PlantedSecret(what: "an access token", value: access), PlantedSecret(what: "an id_token", value: idToken)]
            if let refresh { state.seenSecrets.append(PlantedSecret(what: "a refresh token", value: refresh)) }
        }
        var fields: [String: Any] = ["access_token": access, "token_type": "Bearer", "expires_in": 3600, "scope": scope, "user_id": user]
        if let refresh { fields["refresh_token"] = refresh }
        if faults.missingIDToken != true { fields["id_token"] = idToken }
        return SimulatedResponse(200, [("Content-Type", "application/json"), ("Cache-Control", "no-store")], body: json(fields))
    }

    /// A JWT with `alg: none` and an empty signature (RFC 7519 section 6): what no client may accept.
    func unsigned(_ claims: [String: Any]) -> String {
        Self.base64URL(Data(json(["alg": "none", "typ": "JWT"]).utf8)) + "." + Self.base64URL(Data(json(claims).utf8)) + "."
    }

    func sign(_ claims: [String: Any], kid: String, key: P256.Signing.PrivateKey) -> String {
        let header = Self.base64URL(Data(json(["alg": "ES256", "typ": "JWT", "kid": kid]).utf8))
        let payload = Self.base64URL(Data(json(claims).utf8))
        let input = header + "." + payload
        let signature = (try? key.signature(for: Data(input.utf8)).rawRepresentation) ?? Data()
        return input + "." + Self.base64URL(signature)
    }

    /// The claims of a JWT signed by this provider's key, or nil.
    func verify(_ token: String) -> [String: Any]? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let signature = Self.fromBase64URL(String(parts[2])),
            let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.publicKey.isValidSignature(ecdsa, for: Data("\(parts[0]).\(parts[1])".utf8)),
            let payload = Self.fromBase64URL(String(parts[1]))
        else { return nil }
        return try? JSONSerialization.jsonObject(with: payload) as? [String: Any]
    }

    // MARK: - Helpers

    func error(_ status: Int, _ code: String, _ description: String) -> SimulatedResponse {
        SimulatedResponse(status, [("Content-Type", "application/json")], body: json(["error": code, "error_description": description]))
    }

    func redirectError(_ redirect: String, state: String?, _ code: String, _ description: String) -> SimulatedResponse {
        var location =
            redirect + (redirect.contains("?") ? "&" : "?") + "error=\(code)&error_description="
            + (description.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        if let state { location += "&state=" + (state.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") }
        return SimulatedResponse(302, [("Location", location)])
    }

    func json(_ object: Any) -> String {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])).map { String(decoding: $0, as: UTF8.self) }
            ?? "{}"
    }

    static func isLoopbackRedirect(_ uri: String) -> Bool {
        guard let components = URLComponents(string: uri), components.scheme == "http" || components.scheme == "https", let host = components.host else {
            return false
        }
        let bare = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        return SimulatorAddress.isLoopback(bare) || bare == "localhost"
    }

    static func random(_ bytes: Int) -> String {
        base64URL(Data((0..<bytes).map { _ in UInt8.random(in: 0...255) }))
    }

    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
            of: "=", with: "")
    }

    static func fromBase64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    /// `a=1&b=2` into a dictionary (form bodies and query strings).
    static func form(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(parts[1])) : ""
            result[name] = value
        }
        return result
    }
}
