import Crypto
import FoundationEssentials
import Glibc
import VigilPaths
import VigilText

/// Short keyed hashes for `«private:1a2b3c»`: HMAC-SHA256 under a secret key, so that equal
/// values correlate in one log while nobody without the key can test guesses against them
/// (an unkeyed 24-bit hash of a user name is reversed by a dictionary).
public struct LogHasher: Sendable {
    /// The key bytes (SymmetricKey is not Sendable in swift-crypto 3).
    let key: [UInt8]

    /// A random key: hashes correlate within this process only.
    public init() { key = (0..<32).map { _ in UInt8.random(in: 0...255) } }

    /// A given key (for example one kept in the state directory, to correlate across runs).
    public init(key: [UInt8]) { self.key = key }

    /// Loads the key kept at `path`, creating it (mode 0600) when missing; falls back to a random key.
    public static func persistent(at path: String) -> LogHasher {
        if let data = FileManager.default.contents(atPath: path), data.count == 32 { return LogHasher(key: [UInt8](data)) }
        var bytes = [UInt8](repeating: 0, count: 32)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
        let directory = PathName.directory(of: path)
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) {
            return LogHasher(key: bytes)
        }
        return LogHasher()
    }

    /// Six hex digits.
    public func hash(_ value: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data(value.utf8), using: SymmetricKey(data: key))
        return code.prefix(3).map { $0.hex(digits: 2) }.joined()
    }

    /// A process-wide hasher with a random key.
    public static let shared = LogHasher()
}
