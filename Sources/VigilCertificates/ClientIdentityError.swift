public import VigilErrors

/// Why a client certificate file was not taken. The reason never holds the passphrase or key.
public struct ClientIdentityError: CodedError, CustomStringConvertible, Sendable {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unreadable
            case wrongPassphrase = "wrong-passphrase"
            case passphraseNeeded = "passphrase-needed"
            case noKey = "no-key"
            case keyMismatch = "key-mismatch"
            case noCertificate = "no-certificate"
            case refused
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file cannot be read, or is neither PKCS#12 nor PEM nor DER.
        public static let unreadable = Code(.unreadable)
        /// The passphrase does not open the file or the key.
        public static let wrongPassphrase = Code(.wrongPassphrase)
        /// The file or key is encrypted and no passphrase was given.
        public static let passphraseNeeded = Code(.passphraseNeeded)
        /// No private key (give it with --client-key).
        public static let noKey = Code(.noKey)
        /// The key belongs to no certificate given.
        public static let keyMismatch = Code(.keyMismatch)
        /// No certificate in the file.
        public static let noCertificate = Code(.noCertificate)
        /// Read, but refused by review (expired, no clientAuth, broken crypto): ``ClientIdentity/refusals(at:)``.
        public static let refused = Code(.refused)

        /// The code's name (`wrong-passphrase`, ...).
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let code: Code
    /// A sentence for a person.
    public let reason: String
    /// The source file that threw (`#fileID`).
    public let file: String
    /// The source line that threw.
    public let line: Int

    /// An error with `code` and `reason`, located where it is made.
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// The reason.
    public var description: String { reason }

}
