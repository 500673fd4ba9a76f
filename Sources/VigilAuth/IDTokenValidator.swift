public import FoundationEssentials
import Glibc
import JWTKit
import VigilText

/// The claims of an id_token Vigil reads (OpenID Connect Core 1.0, section 2).
public struct IDTokenClaims: Sendable, Equatable {
    /// `iss`: the issuer.
    public var iss: String
    /// `sub`: the user's identifier at the issuer.
    public var sub: String
    /// `aud`: the client ids the token is for (a single string becomes one element).
    public var aud: [String]
    /// `exp`: when the token expires, in seconds since 1970.
    public var exp: Double
    /// `iat`: when the token was issued, in seconds since 1970.
    public var iat: Double
    /// `nonce`: the one from the authorization request; nil when absent.
    public var nonce: String?
    /// `azp`: the authorized party, the client the token was issued to; nil when absent.
    public var azp: String?
    /// `preferred_username`; nil when absent.
    public var preferredUsername: String?

    /// Claims from their values.
    public init(iss: String, sub: String, aud: [String], exp: Double, iat: Double, nonce: String? = nil, azp: String? = nil, preferredUsername: String? = nil) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.exp = exp
        self.iat = iat
        self.nonce = nonce
        self.azp = azp
        self.preferredUsername = preferredUsername
    }

    /// The user name to show: `preferred_username`, else `sub`.
    public var userName: String { preferredUsername.flatMap { $0.isEmpty ? nil : $0 } ?? sub }
}

/// The id_token as jwt-kit decodes it (`aud` a string or a list).
struct IDTokenPayload: JWTPayload {
    var iss: String
    var sub: String
    var aud: AudienceClaim
    var exp: Double
    var iat: Double
    var nonce: String?
    var azp: String?
    var preferredUsername: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, azp
        case preferredUsername = "preferred_username"
    }

    /// Claims are checked by ``IDTokenValidator`` after the signature, for messages that say which.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    var claims: IDTokenClaims {
        IDTokenClaims(iss: iss, sub: sub, aud: aud.value, exp: exp, iat: iat, nonce: nonce, azp: azp, preferredUsername: preferredUsername)
    }
}

/// Validates an id_token the way OpenID Connect Core 1.0 section 3.1.3.7 asks, with jwt-kit for
/// the signature: an asymmetric algorithm only (never `none`, never HMAC with a public client),
/// the JWKS key whose `kid` the header names (the JWKS fetched again once when the `kid` is
/// unknown: a rotated key), `iss` exactly the issuer, `aud` containing the client id, `azp` the
/// client when present (and required with several audiences), `exp` in the future and `iat` not,
/// with a small leeway, and `nonce` the one sent.
public struct IDTokenValidator: Sendable {
    /// The issuer `iss` must be, exactly.
    public var issuer: String
    /// The client id `aud` must contain (and `azp` be, when present or when there are several audiences).
    public var clientID: String
    /// The nonce sent with the authorization request, which the token must carry.
    public var nonce: String
    /// The time `exp` and `iat` are checked against.
    public var now: Date
    /// Clock skew tolerated on `exp` and `iat`.
    public var leeway: TimeInterval = 60

    /// Algorithms an id_token may be signed with.
    public static let allowedAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

    /// A validator for one login's issuer, client and nonce, checking times against `now`.
    public init(issuer: String, clientID: String, nonce: String, now: Date = Date()) {
        self.issuer = issuer
        self.clientID = clientID
        self.nonce = nonce
        self.now = now
    }

    /// The verified claims. `fetchJWKS` returns the provider's JWKS (JSON); it is called once, and
    /// a second time only when the token names a `kid` the first answer lacks.
    public func validate(_ token: String, fetchJWKS: @Sendable () async throws -> [UInt8]) async throws -> IDTokenClaims {
        let header = try Self.header(of: token)
        guard let algorithm = header["alg"]?.string, Self.allowedAlgorithms.contains(algorithm) else {
            throw Self.invalid("it is signed with \(Self.shown(header["alg"]?.string)), not an asymmetric algorithm Vigil accepts (never none, never HMAC)")
        }
        let kid = header["kid"]?.string
        var keys = try Self.keys(from: try await fetchJWKS())
        if let kid, !keys.contains(where: { $0.kid == kid }) {
            keys = try Self.keys(from: try await fetchJWKS())  // a rotated key: fetched again, once
        }
        let candidates = keys.filter { kid == nil ? keys.count == 1 : $0.kid == kid }
        guard let key = candidates.first else {
            throw Self.invalid(
                kid.map { "its key id \(SafeKID.shown($0)) is not in the provider's JWKS, even fetched again" }
                    ?? "it names no key id, and the provider's JWKS has several keys")
        }
        if let keyAlgorithm = key.alg, keyAlgorithm != algorithm {
            throw Self.invalid("its algorithm \(algorithm) is not the one its key is for (\(keyAlgorithm))")
        }
        let collection = JWTKeyCollection()
        let claims: IDTokenClaims
        do {
            try await collection.add(jwk: key.jwk, isDefault: true)
            claims = try await collection.verify(token, as: IDTokenPayload.self).claims
        } catch {
            throw Self.invalid("its signature does not verify with the provider's key")
        }
        try check(claims)
        return claims
    }

    /// The claims a signature does not prove: who issued it, for whom, when, for which request.
    public func check(_ claims: IDTokenClaims) throws {
        guard claims.iss == issuer else { throw Self.invalid("its issuer is \(claims.iss), not \(issuer)") }
        guard claims.aud.contains(clientID) else { throw Self.invalid("it is not for this client (aud: \(claims.aud.joined(separator: ", ")))") }
        if claims.aud.count > 1 || claims.azp != nil {
            guard claims.azp == clientID else { throw Self.invalid("its authorized party (azp) is \(claims.azp ?? "missing"), not this client") }
        }
        let time = now.timeIntervalSince1970
        guard claims.exp + leeway > time else { throw Self.invalid("it expired at \(Date(timeIntervalSince1970: claims.exp))") }
        guard claims.iat - leeway <= time else { throw Self.invalid("it was issued in the future (\(Date(timeIntervalSince1970: claims.iat)))") }
        guard let sent = claims.nonce, OAuth2Login.constantTimeEqual(sent, nonce) else {
            throw Self.invalid(claims.nonce == nil ? "it carries no nonce" : "its nonce is not the one Vigil sent (a replayed or injected token)")
        }
    }

    static func invalid(_ why: String) -> OAuth2Error {
        OAuth2Error(.invalidIDToken, "The id_token is refused: \(why).")
    }

    /// The JOSE header, decoded (not trusted: it only picks the key).
    static func header(of token: String) throws -> [String: JSONValue] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = base64URLDecoded(String(parts[0])),
            let header = JSONValue.parseObject(data)
        else {
            throw invalid("it is not a signed JWT (three base64url parts)")
        }
        return header
    }

    struct Key: Sendable {
        var kid: String?
        var alg: String?
        var jwk: JWK
    }

    /// The JWKS's signing keys (RSA, EC, OKP; `use` absent or `sig`); symmetric and encryption
    /// keys are dropped before jwt-kit sees them.
    static func keys(from json: [UInt8]) throws -> [Key] {
        guard let object = JSONValue.parseObject(json), let entries = object["keys"]?.array?.compactMap(\.object) else {
            throw OAuth2Error(.discoveryRejected, "The provider's JWKS is not a JSON object with keys.")
        }
        return entries.enumerated().compactMap { index, original in
            var entry = original
            // jwt-kit keeps keys by kid: one without gets a name of Vigil's (never matched by a token's kid).
            if entry["kid"] == nil { entry["kid"] = .string("vigil-unnamed-\(index)") }
            guard let type = entry["kty"]?.string, ["RSA", "EC", "OKP"].contains(type), (entry["use"]?.string ?? "sig") == "sig",
                let jwk = try? JSONDecoder().decode(JWK.self, from: Data(JSONValue.object(entry).encoded()))
            else { return nil }
            return Key(kid: original["kid"]?.string, alg: entry["alg"]?.string, jwk: jwk)
        }
    }

    static func base64URLDecoded(_ text: String) -> Data? {
        var base64 = text.replacing("-", with: "+").replacing("_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }

    static func shown(_ value: String?) -> String {
        guard let text = value else { return "no algorithm" }
        return SafeKID.shown(text)
    }
}

/// A header value from a token, cut and made printable before it is quoted in a message.
enum SafeKID {
    static func shown(_ text: String) -> String {
        "\"" + String(text.prefix(40).map { $0.isLetter || $0.isNumber || "-_.".contains($0) ? $0 : "?" }) + "\""
    }
}
