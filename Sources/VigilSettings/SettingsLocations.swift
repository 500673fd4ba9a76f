import VigilPaths

/// Where the settings files are, from the environment.
public struct SettingsLocations: Sendable, Hashable {
    /// `$XDG_CONFIG_HOME/vigil/settings.json` (default `~/.config/vigil/settings.json`).
    public var userFile: String
    /// `/etc/vigil/managed.json`, or the file named by `VIGIL_MANAGED_CONFIG`.
    public var managedFile: String

    public init(userFile: String, managedFile: String) {
        self.userFile = userFile
        self.managedFile = managedFile
    }

    public static let defaultManagedFile = "/etc/vigil/managed.json"
    public static let managedFileVariable = "VIGIL_MANAGED_CONFIG"

    /// Variables starting with `VIGIL_` that are not settings.
    public static let controlVariables: Set<String> = [managedFileVariable, "VIGIL_BINARY", "VIGIL_PUBLIC_SUFFIX_LIST", "VIGIL_LIMBO_DIR", "VIGIL_DATA_DIR"]

    public init(environment: [String: String]) {
        self.init(
            userFile: XDGDirectories(environment: environment).config + "/settings.json",
            managedFile: environment[Self.managedFileVariable].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultManagedFile
        )
    }
}
