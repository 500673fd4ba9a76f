public import VigilErrors

/// A settings error that stops the program (a broken managed file) or a refused change.
public struct SettingsError: CodedError, CustomStringConvertible, Sendable {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case brokenManagedFile = "broken-managed-file"
            case brokenUserFile = "broken-user-file"
            case invalidSettings = "invalid-settings"
            case unknownKey = "unknown-key"
            case invalidValue = "invalid-value"
            case lockedKey = "locked-key"
            case managedOnlyKey = "managed-only-key"
            case writeFailed = "write-failed"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// The managed file cannot be read, is not a JSON object, or holds invalid values.
        public static let brokenManagedFile = Code(.brokenManagedFile)
        /// The user file is not a JSON object (it is never overwritten then).
        public static let brokenUserFile = Code(.brokenUserFile)
        /// A source holds invalid values.
        public static let invalidSettings = Code(.invalidSettings)
        /// The key is not in the catalogue.
        public static let unknownKey = Code(.unknownKey)
        /// The value is not one the key accepts.
        public static let invalidValue = Code(.invalidValue)
        /// The managed configuration does not let the user set this key.
        public static let lockedKey = Code(.lockedKey)
        /// Only the managed file may set this key.
        public static let managedOnlyKey = Code(.managedOnlyKey)
        /// The user file could not be written; the old one is unchanged.
        public static let writeFailed = Code(.writeFailed)
        /// The code's name (`locked-key`).
        public var description: String { base.rawValue }
    }
    /// What went wrong.
    public let code: Code
    /// One sentence for a person.
    public let reason: String
    /// Where the error was raised (`#fileID`).
    public let file: String
    /// The line where the error was raised (`#line`).
    public let line: Int

    /// An error with `code` and `reason`, raised at the caller's file and line.
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }
    /// The reason alone.
    public var description: String { reason }

}

extension SettingsError {
    /// A settings file that cannot be used is the configuration's failure (78); a refused change
    /// (`vigil config set`) is an error of its own.
    public var outcome: Outcome {
        [.brokenManagedFile, .brokenUserFile, .invalidSettings].contains(code) ? .configuration : .error
    }
}
