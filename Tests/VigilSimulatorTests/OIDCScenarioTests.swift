import Crypto
import Foundation
import Testing
import VigilSimulator
import VigilSimulatorTesting
import VigilTestSupport

/// The OAuth2 / OpenID Connect side of the simulated cloud, in process (the provider's logic needs
/// no socket); the whole flow once over each transport, which must agree. Tokens are checked
/// against the published JWKS here.
@Suite("OpenID Connect", .timeLimit(.minutes(3)))
struct OIDCScenarioTests {
    let redirect = "http://127.0.0.1:53682/callback"
    let verifier = "test-verifier-0123456789-abcdefghijklmnopqrstuvwxyz"

    static func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
            of: "=", with: "")
    }
    static func decode(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
    func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Registration, authorization with PKCE and the code exchange; returns the token response.
    func login(_ cloud: SimulatedCloudClient, nonce: String = "n-0S6_WzA2Mj", pkce: Bool = true) async throws -> [String: Any] {
        let registration = try await cloud.execute(
            "POST", "/index.php/apps/oauth2/register", headers: [("Content-Type", "application/json")],
            body: Array(#"{"redirect_uris":["\#(redirect)"],"client_name":"vigil test"}"#.utf8))
        #expect(registration.status == 201)
        let client = try #require(try object(registration.text)["client_id"] as? String)
        let challenge = Self.base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
        var query =
            "response_type=code&client_id=\(client)&redirect_uri=\(redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&state=xyz&scope=openid%20offline_access&nonce=\(nonce)&login_hint=bob"
        if pkce { query += "&code_challenge=\(challenge)&code_challenge_method=S256" }
        let authorize = try await cloud.get("/index.php/apps/oauth2/authorize?\(query)")
        #expect(authorize.status == 302)
        let location = try #require(authorize.header("Location"))
        #expect(location.hasPrefix(redirect + "?code="))
        #expect(location.hasSuffix("&state=xyz"))
        let code = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)
        var form: [(String, String)] = [("grant_type", "authorization_code"), ("code", code), ("client_id", client), ("redirect_uri", redirect)]
        if pkce { form.append(("code_verifier", verifier)) }
        let token = try await cloud.post("/index.php/apps/oauth2/api/v1/token", form: form)
        #expect(token.status == 200, "\(token.text)")
        var result = try object(token.text)
        result["client_id"] = client
        return result
    }

    /// Verifies an ES256 JWT against the JWKS and returns its header and claims.
    func verify(_ jwt: String, _ cloud: SimulatedCloudClient) async throws -> (header: [String: Any], claims: [String: Any], valid: Bool) {
        let jwks = try object(try await cloud.get("/index.php/apps/oauth2/jwks").text)
        let key = try #require((jwks["keys"] as? [[String: Any]])?.first)
        let parts = jwt.split(separator: ".").map(String.init)
        #expect(parts.count == 3)
        let headerData = try #require(Self.decode(parts[0]))
        let claimsData = try #require(Self.decode(parts[1]))
        let header = try #require(try JSONSerialization.jsonObject(with: headerData) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: claimsData) as? [String: Any])
        let x = try #require(Self.decode(key["x"] as? String ?? ""))
        let y = try #require(Self.decode(key["y"] as? String ?? ""))
        let publicKey = try P256.Signing.PublicKey(rawRepresentation: x + y)
        let signatureData = try #require(Self.decode(parts[2]))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureData)
        let valid = header["kid"] as? String == key["kid"] as? String && publicKey.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8))
        return (header, claims, valid)
    }

    @Test(arguments: SimulatorTransport.allCases)
    func discoveryWebFingerAndTheWholeFlow(transport: SimulatorTransport) async throws {
        try await withCloud("oidc", transport) { (cloud) async throws in
            let issuer = cloud.url(path: "")
            let discovery = try object(try await cloud.get("/.well-known/openid-configuration").text)
            #expect(discovery["issuer"] as? String == issuer)
            #expect((discovery["code_challenge_methods_supported"] as? [String]) == ["S256"])
            #expect(discovery["registration_endpoint"] as? String == issuer + "/index.php/apps/oauth2/register")
            let finger = try object(try await cloud.get("/.well-known/webfinger?resource=acct:bob@127.0.0.1").text)
            #expect(((finger["links"] as? [[String: Any]])?.first?["href"] as? String) == issuer)

            let tokens = try await login(cloud)
            let id = try await verify(try #require(tokens["id_token"] as? String), cloud)
            #expect(id.valid)
            #expect(id.claims["iss"] as? String == issuer)
            #expect(id.claims["aud"] as? String == tokens["client_id"] as? String)
            #expect(id.claims["sub"] as? String == "bob")
            #expect(id.claims["nonce"] as? String == "n-0S6_WzA2Mj")
            #expect((id.claims["exp"] as? Double ?? 0) > (id.claims["iat"] as? Double ?? 0))

            let access = try #require(tokens["access_token"] as? String)
            #expect(try await verify(access, cloud).valid)
            let dav = try await cloud.execute("PROPFIND", "/remote.php/dav/files/bob/", headers: [("Authorization", "Bearer \(access)")])
            #expect(dav.status == 207)
            #expect(try await cloud.execute("PROPFIND", "/remote.php/dav/files/bob/", headers: [("Authorization", "Bearer \(access)x")]).status == 401)
            // What reached the server, as its journal saw it: the token accepted once, refused once.
            let davEntries = cloud.simulator.journal.entries.filter { $0.path == "/remote.php/dav/files/bob/" }
            #expect(davEntries.map(\.status) == [207, 401] && davEntries.map { $0.acceptedToken == true } == [true, false])

            // Refresh tokens rotate: the new one works, the old one is rejected.
            let refresh = try #require(tokens["refresh_token"] as? String)
            let form = [("grant_type", "refresh_token"), ("refresh_token", refresh)]
            let first = try await cloud.post("/index.php/apps/oauth2/api/v1/token", form: form)
            #expect(first.status == 200)
            #expect(try object(first.text)["refresh_token"] as? String != refresh)
            let reused = try await cloud.post("/index.php/apps/oauth2/api/v1/token", form: form)
            #expect(reused.status == 400 && reused.text.contains("invalid_grant"))
        }
    }

    @Test func pkceIsRequiredAndCodesAreSingleUse() async throws {
        try await withCloud("oidc", .inProcess) { (cloud) async throws in
            let noPKCE = try await cloud.get(
                "/index.php/apps/oauth2/authorize?response_type=code&client_id=\(OIDCProvider.staticClientID)&redirect_uri=\(redirect)&state=s")
            #expect(noPKCE.status == 302 && noPKCE.header("Location")?.contains("error=invalid_request") == true)
            let external = try await cloud.get(
                "/index.php/apps/oauth2/authorize?response_type=code&client_id=\(OIDCProvider.staticClientID)&redirect_uri=https://attacker.example/cb&code_challenge=x&code_challenge_method=S256"
            )
            #expect(external.status == 400, "only loopback redirect URIs")
        }
        try await withCloud("oauth2-missing-pkce-accepted", .inProcess) { (weak) async throws in
            _ = try await login(weak, pkce: false)
        }
    }

    @Test(arguments: [
        ("oidc-wrong-issuer", "iss"), ("oidc-wrong-audience", "aud"), ("oidc-bad-nonce", "nonce"), ("oidc-expired-id-token", "exp"),
        ("oidc-unknown-kid", "kid"),
    ])
    func faultsAreInTheIDToken(scenario: String, claim: String) async throws {
        try await withCloud(scenario, .inProcess) { (cloud) async throws in
            let tokens = try await login(cloud)
            let id = try await verify(try #require(tokens["id_token"] as? String), cloud)
            switch claim {
            case "iss": #expect(id.claims["iss"] as? String != cloud.url(path: ""))
            case "aud": #expect(id.claims["aud"] as? String != tokens["client_id"] as? String)
            case "nonce": #expect(id.claims["nonce"] as? String != "n-0S6_WzA2Mj")
            case "exp":
                #expect(
                    (id.claims["exp"] as? Double ?? .infinity) < Date().timeIntervalSince1970 + 86_400 * 365
                        && (id.claims["exp"] as? Double ?? 0) < (id.claims["iat"] as? Double ?? 0))
            default:
                #expect(id.header["kid"] as? String == "unknown-kid")
                #expect(!id.valid)
            }
            if claim != "kid" { #expect(id.valid, "the fault is in the claims; the signature itself is good") }
        }
    }

    @Test func reusedRefreshTokenAcceptedWhenTheScenarioSaysSo() async throws {
        try await withCloud("oidc-refresh-reuse-accepted", .inProcess) { (cloud) async throws in
            let refresh = try #require(try await login(cloud)["refresh_token"] as? String)
            let form = [("grant_type", "refresh_token"), ("refresh_token", refresh)]
            #expect(try await cloud.post("/index.php/apps/oauth2/api/v1/token", form: form).status == 200)
            #expect(try await cloud.post("/index.php/apps/oauth2/api/v1/token", form: form).status == 200)
        }
    }

    @Test func aBasicOnlyServerHasNoOAuth2OrOpenIDConnect() async throws {
        try await withCloud("basic-only", .inProcess) { (cloud) async throws in
            for path in ["/.well-known/openid-configuration", "/index.php/apps/oauth2/jwks", "/.well-known/webfinger?resource=acct:alice"] {
                #expect(try await cloud.get(path).status == 404, "\(path)")
            }
            #expect(try await cloud.get("/status.php").status == 200)
        }
    }

    @Test(arguments: [("basic-only", ["Basic"]), ("bearer-only", ["Bearer"]), ("valid", ["Basic", "Bearer"])])
    func challengesFollowTheConfiguredSchemes(scenario: String, schemes: [String]) async throws {
        try await withCloud(scenario, .inProcess) { (cloud) async throws in
            let result = try await cloud.execute("PROPFIND", "/remote.php/dav/files/alice/")
            let offered = result.headers.filter { $0.name.lowercased() == "www-authenticate" }.map { String($0.value.prefix { $0 != " " }) }
            #expect(offered == schemes)
        }
    }
}
