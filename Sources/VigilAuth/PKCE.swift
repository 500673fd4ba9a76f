import Crypto
import FoundationEssentials
import Glibc

/// Proof Key for Code Exchange (RFC 7636) with S256: a fresh verifier per login.
public struct PKCE: Sendable {
    /// 43 characters of base64url from 32 random bytes.
    public let verifier: String
    /// base64url(SHA-256(verifier)).
    public var challenge: String { Self.base64URL(Data(SHA256.hash(data: Data(verifier.utf8)))) }
    /// `S256`, sent as `code_challenge_method`.
    public let method = "S256"

    /// A fresh verifier from the system's random number generator.
    public init() {
        var generator = SystemRandomNumberGenerator()
        verifier = Self.base64URL(Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }))
    }

    init(verifier: String) {
        self.verifier = verifier
    }

    /// A random, URL-safe value (for `state` and `nonce`).
    static func randomToken() -> String { PKCE().verifier }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }
}
