/// A client certificate's private key: unencrypted PKCS#8 PEM held in memory, or a key on a
/// token (PKCS#11, RFC 7512 URI) loaded through OpenSSL's pkcs11 engine, which never leaves the
/// token. It never shows itself (printing, interpolating, dumping or mirroring gives
/// `«private key»`) and is not `Codable`; the PEM is read only with ``withPEM(_:)`` at the moment it
/// is stored in the keyring or handed to the TLS library.
public struct ClientKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The PEM, or nil for a key on a token.
    private let pem: String?
    /// The token's URI (RFC 7512, its PIN taken out), or nil for a key in memory.
    public let tokenURI: String?
    /// The token's PIN.
    private let pin: String?

    /// A key held in memory as `pem`.
    public init(pem: String) {
        self.pem = pem
        self.tokenURI = nil
        self.pin = nil
    }

    /// A key on a token, named by `uri` and unlocked with `pin`; loaded where it is used.
    public init(tokenURI uri: String, pin: String?) {
        self.pem = nil
        self.tokenURI = uri
        self.pin = pin
    }

    /// The PEM, for the one call that needs it; nil for a key on a token.
    public func withPEM<Result>(_ body: (String) throws -> Result) rethrows -> Result? {
        guard let pem else { return nil }
        return try body(pem)
    }

    /// The token's PIN, for the one call that unlocks it.
    public func withPIN<Result>(_ body: (String?) throws -> Result) rethrows -> Result {
        try body(pin)
    }

    /// What the keyring keeps: the PEM, or the token's URI and PIN (`pkcs11:...` then `pin: ...`).
    public func withStoredForm<Result>(_ body: (String) throws -> Result) rethrows -> Result {
        if let tokenURI { return try body(tokenURI + "\n" + (pin.map { "pin: \($0)\n" } ?? "")) }
        return try body(pem ?? "")
    }

    /// `«private key»`, never the key.
    public var description: String { "«private key»" }
    /// `ClientKey(«private key»)`, never the key.
    public var debugDescription: String { "ClientKey(«private key»)" }
    /// A mirror with no children, so that `dump` and the debugger show nothing of the key.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
