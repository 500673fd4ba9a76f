public import VigilErrors

/// An error of the simulator: a malformed fixture, a refused address, a missing certificate.
public struct SimulatorError: VigilError, Hashable, CustomStringConvertible, Sendable {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case malformedFixture = "malformed-fixture"
            case unknownScenario = "unknown-scenario"
            case refusedAddress = "refused-address"
            case missingCertificate = "missing-certificate"
            case startFailed = "start-failed"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        public static let malformedFixture = Code(.malformedFixture)
        public static let unknownScenario = Code(.unknownScenario)
        /// Only 127.0.0.0/8 and ::1 may be bound.
        public static let refusedAddress = Code(.refusedAddress)
        public static let missingCertificate = Code(.missingCertificate)
        public static let startFailed = Code(.startFailed)
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
