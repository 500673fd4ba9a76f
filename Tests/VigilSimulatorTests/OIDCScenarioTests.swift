import Crypto
import Foundation
import Testing
import VigilSimulator
import VigilTestSupport

/// The OAuth2 / OpenID Connect side, driven by curl; tokens are checked against the published JWKS here.
@Suite("OpenID Connect, live", .serialized, .timeLimit(.minutes(3)))
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
    func login(_ running: RunningSimulator, nonce: String = "n-0S6_WzA2Mj", pkce: Bool = true) async throws -> [String: Any] {
        let registration = try await running.curl(
            ["-X", "POST", "-H", "Content-Type: application/json", "--data", #"{"redirect_uris":["\#(redirect)"],"client_name":"vigil test"}"#],
            url: running.url(path: "/index.php/apps/oauth2/register"))
        #expect(registration.status == 201)
        let client = try #require(try object(registration.body)["client_id"] as? String)
        let challenge = Self.base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
        var query =
            "response_type=code&client_id=\(client)&redirect_uri=\(redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&state=xyz&scope=openid%20offline_access&nonce=\(nonce)&login_hint=bob"
        if pkce { query += "&code_challenge=\(challenge)&code_challenge_method=S256" }
        let authorize = try await running.curl([], url: running.url(path: "/index.php/apps/oauth2/authorize?\(query)"))
        #expect(authorize.status == 302)
        let location = try #require(authorize.headers.split(separator: "\r\n").first { $0.hasPrefix("Location: ") }.map { String($0.dropFirst(10)) })
        #expect(location.hasPrefix(redirect + "?code="))
        #expect(location.hasSuffix("&state=xyz"))
        let code = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)
        var form = ["grant_type=authorization_code", "code=\(code)", "client_id=\(client)", "redirect_uri=\(redirect)"]
        if pkce { form.append("code_verifier=\(verifier)") }
        let token = try await running.curl(form.flatMap { ["--data-urlencode", $0] }, url: running.url(path: "/index.php/apps/oauth2/api/v1/token"))
        #expect(token.status == 200, "\(token.body)")
        var result = try object(token.body)
        result["client_id"] = client
        return result
    }

    /// Verifies an ES256 JWT against the JWKS and returns its header and claims.
    func verify(_ jwt: String, _ running: RunningSimulator) async throws -> (header: [String: Any], claims: [String: Any], valid: Bool) {
        let jwks = try object(try await running.curl([], url: running.url(path: "/index.php/apps/oauth2/jwks")).body)
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

    @Test func discoveryWebFingerAndTheWholeFlow() async throws {
        try await withRunningSimulator("oidc") { (running) async throws in
            let issuer = running.url(path: "")
            let discovery = try object(try await running.curl([], url: running.url(path: "/.well-known/openid-configuration")).body)
            #expect(discovery["issuer"] as? String == issuer)
            #expect((discovery["code_challenge_methods_supported"] as? [String]) == ["S256"])
            #expect(discovery["registration_endpoint"] as? String == issuer + "/index.php/apps/oauth2/register")
            let finger = try object(try await running.curl([], url: running.url(path: "/.well-known/webfinger?resource=acct:bob@127.0.0.1")).body)
            #expect(((finger["links"] as? [[String: Any]])?.first?["href"] as? String) == issuer)

            let tokens = try await login(running)
            let id = try await verify(try #require(tokens["id_token"] as? String), running)
            #expect(id.valid)
            #expect(id.claims["iss"] as? String == issuer)
            #expect(id.claims["aud"] as? String == tokens["client_id"] as? String)
            #expect(id.claims["sub"] as? String == "bob")
            #expect(id.claims["nonce"] as? String == "n-0S6_WzA2Mj")
            #expect((id.claims["exp"] as? Double ?? 0) > (id.claims["iat"] as? Double ?? 0))

            let access = try #require(tokens["access_token"] as? String)
            #expect(try await verify(access, running).valid)
            let dav = try await running.curl(["-X", "PROPFIND", "-H", "Authorization: Bearer \(access)"], url: running.url(path: "/remote.php/dav/files/bob/"))
            #expect(dav.status == 207)
            #expect(
                try await running.curl(["-X", "PROPFIND", "-H", "Authorization: Bearer \(access)x"], url: running.url(path: "/remote.php/dav/files/bob/"))
                    .status == 401)

            // Refresh tokens rotate: the new one works, the old one is rejected.
            let refresh = try #require(tokens["refresh_token"] as? String)
            let form = ["grant_type=refresh_token", "refresh_token=\(refresh)"].flatMap { ["--data-urlencode", $0] }
            let first = try await running.curl(form, url: running.url(path: "/index.php/apps/oauth2/api/v1/token"))
            #expect(first.status == 200)
            #expect(try object(first.body)["refresh_token"] as? String != refresh)
            let reused = try await running.curl(form, url: running.url(path: "/index.php/apps/oauth2/api/v1/token"))
            #expect(reused.status == 400 && reused.body.contains("invalid_grant"))
        }
    }

    @Test func pkceIsRequiredAndCodesAreSingleUse() async throws {
        try await withRunningSimulator("oidc") { (running) async throws in
            let noPKCE = try await running.curl(
                [],
                url: running.url(
                    path: "/index.php/apps/oauth2/authorize?response_type=code&client_id=\(OIDCProvider.staticClientID)&redirect_uri=\(redirect)&state=s"))
            #expect(noPKCE.status == 302 && noPKCE.headers.contains("error=invalid_request"))
            let external = try await running.curl(
                [],
                url: running.url(
                    path:
                        "/index.php/apps/oauth2/authorize?response_type=code&client_id=\(OIDCProvider.staticClientID)&redirect_uri=https://attacker.example/cb&code_challenge=x&code_challenge_method=S256"
                ))
            #expect(external.status == 400, "only loopback redirect URIs")
            let weak = try await RunningSimulator("oauth2-missing-pkce-accepted")
            _ = try await login(weak, pkce: false)
            await weak.stop()
        }
    }

    @Test(arguments: [
        ("oidc-wrong-issuer", "iss"), ("oidc-wrong-audience", "aud"), ("oidc-bad-nonce", "nonce"), ("oidc-expired-id-token", "exp"),
        ("oidc-unknown-kid", "kid"),
    ])
    func faultsAreInTheIDToken(scenario: String, claim: String) async throws {
        try await withRunningSimulator(scenario) { (running) async throws in
            let tokens = try await login(running)
            let id = try await verify(try #require(tokens["id_token"] as? String), running)
            switch claim {
            case "iss": #expect(id.claims["iss"] as? String != running.url(path: ""))
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
        try await withRunningSimulator("oidc-refresh-reuse-accepted") { (running) async throws in
            let refresh = try #require(try await login(running)["refresh_token"] as? String)
            let form = ["grant_type=refresh_token", "refresh_token=\(refresh)"].flatMap { ["--data-urlencode", $0] }
            #expect(try await running.curl(form, url: running.url(path: "/index.php/apps/oauth2/api/v1/token")).status == 200)
            #expect(try await running.curl(form, url: running.url(path: "/index.php/apps/oauth2/api/v1/token")).status == 200)
        }
    }

    @Test func aBasicOnlyServerHasNoOAuth2OrOpenIDConnect() async throws {
        try await withRunningSimulator("basic-only") { (running) async throws in
            for path in ["/.well-known/openid-configuration", "/index.php/apps/oauth2/jwks", "/.well-known/webfinger?resource=acct:alice"] {
                #expect(try await running.curl([], url: running.url(path: path)).status == 404, "\(path)")
            }
            #expect(try await running.curl([], url: running.url()).status == 200)
        }
    }

    @Test(arguments: [("basic-only", ["Basic"]), ("bearer-only", ["Bearer"]), ("valid", ["Basic", "Bearer"])])
    func challengesFollowTheConfiguredSchemes(scenario: String, schemes: [String]) async throws {
        try await withRunningSimulator(scenario) { (running) async throws in
            let result = try await running.curl(["-X", "PROPFIND"], url: running.url(path: "/remote.php/dav/files/alice/"))
            let offered = result.headers.split(separator: "\r\n").filter { $0.hasPrefix("WWW-Authenticate: ") }.map {
                String($0.dropFirst(18).prefix { $0 != " " })
            }
            #expect(offered == schemes)
        }
    }
}
