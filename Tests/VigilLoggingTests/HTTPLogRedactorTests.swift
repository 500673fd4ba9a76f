import Foundation
import Testing
import VigilLogging

@Suite("HTTP request and response logging")
struct HTTPLogRedactorTests {
    let redactor = HTTPLogRedactor(maximumBodySize: 64)

    @Test func authorizationKeepsOnlyTheScheme() {
        #expect(redactor.redact(header: "Authorization", value: "Bearer \(Planted.jwt)") == "Bearer [redacted]")
        #expect(redactor.redact(header: "authorization", value: "Basic YWxpY2U6aHVudGVyMg==") == "Basic [redacted]")
        #expect(redactor.redact(header: "Proxy-Authorization", value: "Digest username=\"a\", response=\"b\"") == "Digest [redacted]")
        #expect(redactor.redact(header: "Authorization", value: Planted.token) == "[redacted]")
    }

    /// Keys are secret by the words in them, whatever their case or separators.
    @Test func keysAreSecretByTheirWords() {
        for key in ["accessToken", "appPassword", "sessionId", "SAMLResponse", "RelayState", "ticket", "X-Api-Key", "client_secret", "refresh_token"] {
            #expect(HTTPLogRedactor.isSecret(key: key), "\(key)")
        }
        for key in ["page", "format", "user", "depth", "redirect_uri"] { #expect(!HTTPLogRedactor.isSecret(key: key), "\(key)") }
        let body = redactor.redact(body: Array(#"{"accessToken":"a1","appPassword":"p1","page":2}"#.utf8), contentType: "application/json")
        #expect(!body.contains("a1") && !body.contains("p1") && body.contains("\"page\":2"), "\(body)")
        #expect(
            redactor.redact(url: "https://x/login?ticket=t-123&SAMLResponse=s-456&page=2") == "https://x/login?ticket=[redacted]&SAMLResponse=[redacted]&page=2"
        )
    }

    @Test func cookiesKeepTheirNames() {
        #expect(redactor.redact(header: "Cookie", value: "oc_session=\(Planted.cookie); theme=dark") == "oc_session=[redacted]; theme=[redacted]")
        #expect(
            redactor.redact(header: "Set-Cookie", value: "oc_session=\(Planted.cookie); Path=/; Secure; HttpOnly")
                == "oc_session=[redacted]; Path=/; Secure; HttpOnly")
    }

    @Test func urlUserinfoAndSecretQueryValues() {
        let url =
            "https://alice:\(Planted.password)@cloud.example/index.php/apps/oauth2/authorize?code=\(Planted.code)&state=s1&redirect_uri=http%3A%2F%2F127.0.0.1&code_verifier=\(Planted.verifier)&X-Amz-Signature=abc&page=2"
        let redacted = redactor.redact(url: url)
        for secret in [Planted.password, Planted.code, "s1", Planted.verifier, "abc", "alice"] {
            #expect(!redacted.contains("=\(secret)") && !redacted.contains(":\(secret)@") && !redacted.contains("//\(secret)"), "\(secret) in \(redacted)")
        }
        #expect(redacted.contains("page=2"))
        #expect(redacted.contains("cloud.example"))
        #expect(redactor.redact(url: "https://x/cb#access_token=\(Planted.token)&token_type=bearer").contains("access_token=[redacted]"))
    }

    @Test func requestWithEveryKindOfSecret() {
        let form =
            "grant_type=authorization_code&code=\(Planted.code)&code_verifier=\(Planted.verifier)&client_secret=\(Planted.secret)&refresh_token=\(Planted.token)&password=\(Planted.password)"
        let text = redactor.request(
            method: "POST", url: "https://cloud.example/token?token=\(Planted.token)",
            headers: [
                ("Authorization", "Bearer \(Planted.jwt)"), ("Cookie", "a=\(Planted.cookie)"), ("Content-Type", "application/x-www-form-urlencoded"),
            ], body: Array(form.utf8))
        for secret in Planted.all { #expect(!text.contains(secret), "\(secret) in \(text)") }
        #expect(text.contains("grant_type=authorization_code"))
        #expect(text.hasPrefix("POST https://cloud.example/token?token=[redacted]"))
    }

    @Test func jsonBodiesAreRedactedByKeyAtAnyDepth() {
        let body =
            #"{"access_token":"\#(Planted.token)","token_type":"Bearer","nested":{"id_token":"\#(Planted.jwt)","refresh_token":"x"},"list":[{"password":"\#(Planted.password)"}]}"#
        let text = HTTPLogRedactor(maximumBodySize: 0).response(
            status: 200, headers: [("Content-Type", "application/json"), ("Set-Cookie", "s=\(Planted.cookie)")], body: Array(body.utf8))
        for secret in Planted.all { #expect(!text.contains(secret), "\(secret) in \(text)") }
        #expect(text.contains("\"token_type\":\"Bearer\""))
        #expect(text.hasPrefix("HTTP 200"))
    }

    @Test func otherBodiesAreCutAndBinaryIsDescribed() {
        let text = redactor.redact(body: Array(String(repeating: "a", count: 100).utf8), contentType: "text/plain")
        #expect(text.hasSuffix("[body truncated: 100 -> 64 bytes]"))
        #expect(redactor.redact(body: [0xff, 0xfe, 0x00], contentType: "application/octet-stream") == "[3 bytes of binary data]")
    }

    @Test(arguments: [
        "http://[::1", "%%%?=&&==#&=", "https://@@@/?code", "?code=1#token=2", "https://a:b@c:d@e/f?g=h", "\u{E000}?password=\u{1F600}", "",
        "https://host/?=secret", "//user:pw@host",
    ])
    func hostileURLsNeverCrashAndLeakNothing(url: String) {
        let redacted = redactor.redact(url: url)
        #expect(!redacted.contains("pw@"))
        #expect(!redacted.contains("code=1"))
        #expect(!redacted.contains("token=2"))
    }

    /// JSON that does not parse (a number no Double holds, a body cut short) is not logged: the
    /// key-by-key redaction cannot run on it.
    @Test func unparsableJSONIsNotLogged() {
        let redactor = HTTPLogRedactor()
        for body in [#"{"code": "c0de-secret", "n": 1e400}"#, #"{"state": "st4te-secret", "#] {
            let shown = redactor.redact(body: Array(body.utf8), contentType: "application/json")
            #expect(!shown.contains("secret") && shown.contains("could not be parsed"), "\(shown)")
        }
        #expect(redactor.redact(body: Array(#"{"code": "abc", "ok": true}"#.utf8), contentType: "application/json") == #"{"code":"[redacted]","ok":true}"#)
    }

    /// An access proxy's service token: named like a secret, or named by the account.
    @Test func accessHeadersAreRedacted() {
        var redactor = HTTPLogRedactor()
        #expect(redactor.redact(header: "CF-Access-Client-Secret", value: "s3cr3t") == "[redacted]")
        #expect(redactor.redact(header: "CF-Access-Client-Id", value: "id.access") == "[redacted]")
        #expect(redactor.redact(header: "X-Pomerium-Jwt", value: "eyJ") == "eyJ", "not named like a secret, not the account's")
        redactor.secretHeaderNames = ["x-pomerium-jwt"]
        #expect(redactor.redact(header: "X-Pomerium-Jwt", value: "eyJ") == "[redacted]")
        #expect(redactor.redact(header: "Content-Type", value: "text/plain") == "text/plain")
    }
}
