/// Something wrong in one source, with where it is and what is allowed.
public struct SettingsIssue: Sendable, Hashable, CustomStringConvertible {
    /// How bad an issue is: an error makes the settings unusable for anything but `vigil config`.
    public enum Severity: String, Sendable, Hashable { case warning, error }
    /// Warning or error.
    public var severity: Severity
    /// The source the issue was found in.
    public var source: SettingsSource
    /// The file path, or the environment variable name.
    public var location: String
    /// The setting key, when the issue concerns one.
    public var key: String?
    /// What is wrong, in words.
    public var message: String

    /// `severity: location: key: message`, the key left out when there is none.
    public var description: String {
        "\(severity.rawValue): \(location)" + (key.map { ": \($0)" } ?? "") + ": \(message)"
    }
}
