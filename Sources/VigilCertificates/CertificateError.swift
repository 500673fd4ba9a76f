public import VigilErrors

/// An error reading or loading certificates (I/O or parse). Untrusted chains are not errors:
/// they are a ``TrustVerdict``.
public struct CertificateError: CodedError, CustomStringConvertible, Sendable {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unreadableFile = "unreadable-file"
            case emptyInput = "empty-input"
            case malformedPEM = "malformed-pem"
            case malformedDER = "malformed-der"
            case noCertificates = "no-certificates"
            case malformedCRL = "malformed-crl"
            case invalidHostname = "invalid-hostname"
            case storeFailure = "store-failure"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file could not be read (missing, a directory, no permission).
        public static let unreadableFile = Code(.unreadableFile)
        /// The input was empty.
        public static let emptyInput = Code(.emptyInput)
        /// A PEM block was found but could not be decoded.
        public static let malformedPEM = Code(.malformedPEM)
        /// The bytes are not a DER certificate (truncated or not a certificate).
        public static let malformedDER = Code(.malformedDER)
        /// The input holds no certificate at all.
        public static let noCertificates = Code(.noCertificates)
        /// A CRL could not be decoded.
        public static let malformedCRL = Code(.malformedCRL)
        /// The name to check is not a valid hostname or IP address.
        public static let invalidHostname = Code(.invalidHostname)
        /// OpenSSL could not set up the trust store.
        public static let storeFailure = Code(.storeFailure)

        /// The code's name (`malformed-pem`, ...).
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
