/// A secret value (a password, a token). It never shows itself: printing, interpolating,
/// dumping or mirroring it gives `«secret»`, and it is not `Codable`, so it cannot end up in a
/// log line, a JSON file or a crash report by accident. Read it only with ``withValue(_:)``,
/// at the moment it is sent.
public struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let value: String

    /// A secret holding `value`.
    public init(_ value: String) {
        self.value = value
    }

    /// The value, for the one call that needs it.
    public func withValue<Result>(_ body: (String) throws -> Result) rethrows -> Result {
        try body(value)
    }

    /// The value, for the one asynchronous call that needs it (a request that carries it).
    public func withValue<Result>(_ body: (String) async throws -> Result) async rethrows -> Result {
        try await body(value)
    }

    /// True when the value is the empty string.
    public var isEmpty: Bool { value.isEmpty }

    /// Always `«secret»`, never the value.
    public var description: String { "«secret»" }
    /// Always `Secret(«secret»)`, never the value.
    public var debugDescription: String { "Secret(«secret»)" }
    /// A mirror with no children, so that `dump` and reflection show no value.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
