public import VigilErrors

/// An error of the simulator: a malformed fixture, a refused address, a missing certificate.
public struct SimulatorError: CodedError, CustomStringConvertible, Sendable {
    /// What went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case malformedFixture = "malformed-fixture"
            case unknownScenario = "unknown-scenario"
            case refusedAddress = "refused-address"
            case missingCertificate = "missing-certificate"
            case startFailed = "start-failed"
            case unknownHost = "unknown-host"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// A fixture or fixtures directory is malformed, or a scenario cannot play as configured.
        public static let malformedFixture = Code(.malformedFixture)
        /// No scenario has the name asked for.
        public static let unknownScenario = Code(.unknownScenario)
        /// Only 127.0.0.0/8 and ::1 may be bound.
        public static let refusedAddress = Code(.refusedAddress)
        /// A certificate, key or CA cannot be found or loaded.
        public static let missingCertificate = Code(.missingCertificate)
        /// The simulator or its journal could not start.
        public static let startFailed = Code(.startFailed)
        /// A request names a host or scheme the simulator does not serve.
        public static let unknownHost = Code(.unknownHost)
        /// The code's stable text, such as `unknown-scenario`.
        public var description: String { base.rawValue }
    }
    /// What went wrong.
    public let code: Code
    /// Why, for the user.
    public let reason: String
    /// Where the error was raised (`#fileID`).
    public let file: String
    /// Where the error was raised (`#line`).
    public let line: Int
    /// An error with its code and reason, recording the caller's file and line.
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }
    /// The reason.
    public var description: String { reason }

}
