/// Something wrong in one source, with where it is and what is allowed.
public struct SettingsIssue: Sendable, Hashable, CustomStringConvertible {
    public enum Severity: String, Sendable, Hashable { case warning, error }
    public var severity: Severity
    public var source: SettingsSource
    /// The file path, or the environment variable name.
    public var location: String
    /// The setting key, when the issue concerns one.
    public var key: String?
    public var message: String

    public var description: String {
        "\(severity.rawValue): \(location)" + (key.map { ": \($0)" } ?? "") + ": \(message)"
    }
}
