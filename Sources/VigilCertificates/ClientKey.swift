/// A client certificate's private key, as unencrypted PKCS#8 PEM held in memory. It never shows
/// itself (printing, interpolating, dumping or mirroring gives `«private key»`) and is not
/// `Codable`; read it only with ``withPEM(_:)`` at the moment it is stored in the keyring or
/// handed to the TLS library.
public struct ClientKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let pem: String

    public init(pem: String) {
        self.pem = pem
    }

    public func withPEM<Result>(_ body: (String) throws -> Result) rethrows -> Result {
        try body(pem)
    }

    public var description: String { "«private key»" }
    public var debugDescription: String { "ClientKey(«private key»)" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
