import Crypto
import Foundation
import Testing

@testable import VigilAuth

/// The id_token checks one by one, on tokens made here (ES256 with swift-crypto), including the
/// classic forgeries: `alg: none`, HMAC keyed with the public key, a key id the JWKS lacks, a
/// symmetric key slipped into the JWKS.
@Suite("id_token validation")
struct IDTokenValidatorTests {
    static let issuer = "https://cloud.example.test"
    static let client = "vigil-client"
    static let nonce = "n-0S6_WzA2Mj"
    let key = P256.Signing.PrivateKey()
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func base64URL(_ data: some DataProtocol) -> String {
        Data(data).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(
            of: "=", with: "")
    }

    func json(_ object: Any) -> Data { try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) }

    func claims(_ changes: [String: Any?] = [:]) -> [String: Any] {
        var claims: [String: Any] = [
            "iss": Self.issuer, "sub": "u-123", "aud": Self.client, "exp": now.timeIntervalSince1970 + 300,
            "iat": now.timeIntervalSince1970 - 5, "nonce": Self.nonce, "preferred_username": "alice",
        ]
        for (name, value) in changes { claims[name] = value }
        return claims
    }

    func token(_ claims: [String: Any], header: [String: Any] = ["alg": "ES256", "typ": "JWT", "kid": "k1"], key: P256.Signing.PrivateKey? = nil) -> String {
        let input = base64URL(json(header)) + "." + base64URL(json(claims))
        let signature = try! (key ?? self.key).signature(for: Data(input.utf8)).rawRepresentation
        return input + "." + base64URL(signature)
    }

    func jwks(kid: String = "k1", extra: [[String: Any]] = []) -> [UInt8] {
        let raw = key.publicKey.rawRepresentation
        let entry: [String: Any] = [
            "kty": "EC", "crv": "P-256", "use": "sig", "alg": "ES256", "kid": kid,
            "x": base64URL(raw.prefix(32)), "y": base64URL(raw.suffix(32)),
        ]
        return Array(json(["keys": [entry] + extra]))
    }

    func validate(_ token: String, jwks: [UInt8]? = nil, second: [UInt8]? = nil, fetches: Counter = Counter()) async throws -> IDTokenClaims {
        let first = jwks ?? self.jwks(), next = second ?? first
        let validator = IDTokenValidator(issuer: Self.issuer, clientID: Self.client, nonce: Self.nonce, now: now)
        return try await validator.validate(token) { fetches.increment() == 1 ? first : next }
    }

    final class Counter: @unchecked Sendable {  // `count` guarded by lock
        private let lock = NSLock()
        private var count = 0
        func increment() -> Int {
            lock.lock()
            defer { lock.unlock() }
            count += 1
            return count
        }
        var value: Int {
            lock.lock()
            defer { lock.unlock() }
            return count
        }
    }

    func expectRefused(_ token: String, jwks: [UInt8]? = nil, saying words: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            let claims = try await validate(token, jwks: jwks)
            Issue.record("accepted: \(claims)", sourceLocation: sourceLocation)
        } catch let error as OAuth2Error {
            #expect(error.code == .invalidIDToken, sourceLocation: sourceLocation)
            #expect(error.reason.contains(words), "\(error.reason)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func aGoodTokenGivesItsClaims() async throws {
        let claims = try await validate(token(claims()))
        #expect(claims.sub == "u-123" && claims.userName == "alice" && claims.aud == [Self.client])
    }

    @Test func unsignedAndHMACTokensAreRefused() async throws {
        let header = base64URL(json(["alg": "none", "typ": "JWT"])), payload = base64URL(json(claims()))
        await expectRefused("\(header).\(payload).", saying: "\"none\"")
        // HMAC keyed with the provider's public key (the key-confusion forgery).
        let hmacHeader = base64URL(json(["alg": "HS256", "typ": "JWT", "kid": "k1"]))
        let input = "\(hmacHeader).\(payload)"
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: key.publicKey.x963Representation))
        await expectRefused("\(input).\(base64URL(Data(mac)))", saying: "\"HS256\"")
    }

    @Test func aTamperedPayloadOrAnotherKeyFailsTheSignature() async throws {
        let good = token(claims()).split(separator: ".")
        let forged = "\(good[0]).\(base64URL(json(claims(["sub": "u-admin"])))).\(good[2])"
        await expectRefused(forged, saying: "signature")
        await expectRefused(token(claims(), key: P256.Signing.PrivateKey()), saying: "signature")
    }

    @Test func anUnknownKeyIDIsFetchedAgainOnce() async throws {
        // Rotated: the first JWKS lacks k2, the second has it.
        let rotatedToken = token(claims(), header: ["alg": "ES256", "kid": "k2"])
        let fetches = Counter()
        _ = try await validate(rotatedToken, jwks: jwks(kid: "k1"), second: jwks(kid: "k2"), fetches: fetches)
        #expect(fetches.value == 2)
        // Still unknown after the second fetch: refused, and no third fetch.
        let again = Counter()
        do {
            _ = try await validate(token(claims(), header: ["alg": "ES256", "kid": "k9"]), fetches: again)
            Issue.record("an unknown kid was accepted")
        } catch let error as OAuth2Error {
            #expect(error.code == .invalidIDToken)
            #expect(error.reason.contains("not in the provider's JWKS"))
        }
        #expect(again.value == 2)
    }

    @Test func aSymmetricKeyInTheJWKSIsNeverUsed() async throws {
        let oct: [String: Any] = ["kty": "oct", "kid": "s1", "k": base64URL(Data("secret-secret-secret".utf8))]
        let input = base64URL(json(["alg": "HS256", "kid": "s1"])) + "." + base64URL(json(claims()))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(input.utf8), using: SymmetricKey(data: Data("secret-secret-secret".utf8)))
        await expectRefused("\(input).\(base64URL(Data(mac)))", jwks: jwks(extra: [oct]), saying: "HS256")
    }

    /// A claim changed to a JSON value (`null`: removed), and words the refusal must contain.
    @Test(arguments: [
        ("iss", #""https://attacker.invalid""#, "issuer"),
        ("aud", #""someone-else""#, "not for this client"),
        ("aud", #"["vigil-client", "other"]"#, "authorized party"),
        ("azp", #""other""#, "authorized party"),
        ("exp", "1799999000", "expired"),
        ("iat", "1800001000", "in the future"),
        ("nonce", #""replayed""#, "nonce is not the one"),
        ("nonce", "null", "no nonce"),
    ])
    func eachClaimIsChecked(claim: String, value: String, words: String) async throws {
        let parsed = try JSONSerialization.jsonObject(with: Data(value.utf8), options: [.fragmentsAllowed])
        await expectRefused(token(claims([claim: parsed is NSNull ? nil : parsed])), saying: words)
    }

    @Test func severalAudiencesPassWithTheRightAuthorizedParty() async throws {
        let claims = try await validate(token(claims(["aud": [Self.client, "other"], "azp": Self.client])))
        #expect(claims.azp == Self.client)
    }
}
