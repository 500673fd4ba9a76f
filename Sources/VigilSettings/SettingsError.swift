public import VigilErrors

/// A settings error that stops the program (a broken managed file) or a refused change.
public struct SettingsError: VigilError, Hashable, CustomStringConvertible, Sendable {
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
        public static let unknownKey = Code(.unknownKey)
        public static let invalidValue = Code(.invalidValue)
        /// The managed configuration does not let the user set this key.
        public static let lockedKey = Code(.lockedKey)
        public static let managedOnlyKey = Code(.managedOnlyKey)
        public static let writeFailed = Code(.writeFailed)
        public var description: String { base.rawValue }
    }
    public let code: Code
    public let reason: String
    public let file: String
    public let line: Int

    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }
    public var description: String { reason }
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var codeText: String { code.description }
}
