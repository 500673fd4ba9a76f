import Testing

@testable import VigilAuth

@Suite("Ranking, challenges and discovery documents")
struct AuthenticationRankingTests {
    let all: [AuthenticationMethodIdentifier] = [.openIDConnect, .oauth2, .basicAuth]

    @Test func preferenceOrdersAndAllowedFilters() {
        let detected: [AuthenticationMethodIdentifier] = [.basicAuth, .oauth2]
        // The settings' default preference: OpenID Connect, OAuth2, Basic.
        #expect(AuthenticationMethodRanking.rank(detected, allowed: nil, preferred: all) == [.oauth2, .basicAuth])
        #expect(AuthenticationMethodRanking.rank(detected, allowed: [.basicAuth], preferred: all) == [.basicAuth])
        #expect(AuthenticationMethodRanking.rank(detected, allowed: [.openIDConnect], preferred: all) == [], "nothing usable: the caller must say so")
        #expect(AuthenticationMethodRanking.rank(detected, allowed: nil, preferred: [.basicAuth]) == [.basicAuth, .oauth2])
        let custom = AuthenticationMethodIdentifier(rawValue: "com.example.kerberos")
        #expect(
            AuthenticationMethodRanking.rank([custom, .basicAuth, .basicAuth], allowed: nil, preferred: []) == [custom, .basicAuth],
            "unnamed ones keep detection order, once each")
    }

    @Test(arguments: [
        (["Basic realm=\"ownCloud\", charset=\"UTF-8\"", "Bearer realm=\"ownCloud\""], ["basic", "bearer"]),
        (["Bearer realm=\"a, Basic b\", error=\"invalid_token\""], ["bearer"]),
        (["Negotiate YIIB7gYJKoZIhvcSAQICAQBuggHdMIIB2aADAgEFoQMCAQ6iBwMFACAAAACj==, Basic realm=x"], ["negotiate", "basic"]),
        (["realm = \"x\""], []),
        ([""], []),
    ])
    func challengeSchemes(values: [String], schemes: [String]) {
        #expect(AuthenticationChallenge.schemes(in: values) == schemes)
    }

    @Test func discoveryMustNameThisServerOverHTTPS() throws {
        func document(_ issuer: String, token: String = "https://cloud.test/token") -> [UInt8] {
            Array(
                #"{"issuer":"\#(issuer)","authorization_endpoint":"https://cloud.test/auth","token_endpoint":"\#(token)","jwks_uri":"https://cloud.test/jwks"}"#
                    .utf8)
        }
        let good = try AuthenticationDetector.validate(document("https://cloud.test/"), server: "https://cloud.test").get()
        #expect(good.jwksURI == "https://cloud.test/jwks")
        #expect(throws: (any Error).self) { try AuthenticationDetector.validate(document("https://evil.test"), server: "https://cloud.test").get() }
        #expect(throws: (any Error).self) {
            try AuthenticationDetector.validate(document("https://cloud.test", token: "http://cloud.test/token"), server: "https://cloud.test").get()
        }
        #expect(throws: (any Error).self) { try AuthenticationDetector.validate(Array("<html>".utf8), server: "https://cloud.test").get() }
    }
}
