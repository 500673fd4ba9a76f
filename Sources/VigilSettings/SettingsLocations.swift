import FoundationEssentials
import Glibc
import VigilPaths

/// Where the settings files are, from the environment.
public struct SettingsLocations: Sendable, Hashable {
    /// `$XDG_CONFIG_HOME/vigil/settings.json` (default `~/.config/vigil/settings.json`).
    public var userFile: String
    /// `/etc/vigil/managed.json`; the file named by `VIGIL_MANAGED_CONFIG` only when that one
    /// does not exist (a machine an administrator manages cannot be pointed at another file).
    public var managedFile: String

    /// The locations as given.
    public init(userFile: String, managedFile: String) {
        self.userFile = userFile
        self.managedFile = managedFile
    }

    /// The system's managed file, which takes precedence over `VIGIL_MANAGED_CONFIG` when present.
    public static let defaultManagedFile = "/etc/vigil/managed.json"

    /// Whether /etc/vigil/managed.json is there: anything at that path (a dangling symlink too),
    /// or a directory the user may not search, counts, so that neither can be used to name
    /// another managed file.
    static func systemManagedFileIsThere() -> Bool {
        var info = stat()
        if lstat(defaultManagedFile, &info) == 0 { return true }
        return errno == EACCES
    }
    /// The variable naming another managed file, for a machine without `/etc/vigil/managed.json`.
    public static let managedFileVariable = "VIGIL_MANAGED_CONFIG"

    /// Variables starting with `VIGIL_` that are not settings.
    /// (`VIGIL_PROXY_CA_FILE`, `VIGIL_ALLOW_PLAIN_PROXY_CREDENTIALS`, `VIGIL_PUBLIC_ROOTS` and
    /// `VIGIL_PACTESTER` are read by the HTTP client and the trust evaluator: docs/proxies.md, docs/trust.md;
    /// `VIGIL_SIMULATE_NETWORK_NAMESPACE` marks a `vigil simulate --client` run executed again in its
    /// network namespace.)
    public static let controlVariables: Set<String> = [
        managedFileVariable, "VIGIL_BINARY", "VIGIL_PUBLIC_SUFFIX_LIST", "VIGIL_LIMBO_DIR", "VIGIL_DATA_DIR", "VIGIL_PROXY_CA_FILE",
        "VIGIL_ALLOW_PLAIN_PROXY_CREDENTIALS", "VIGIL_PUBLIC_ROOTS", "VIGIL_PACTESTER", "VIGIL_ALLOW_SSLKEYLOGFILE",
        "VIGIL_SIMULATE_NETWORK_NAMESPACE",
    ]

    /// The locations for `environment`. `systemManagedFileExists` overrides the check for
    /// `/etc/vigil/managed.json` (nil: look at the file system).
    public init(environment: [String: String], systemManagedFileExists: Bool? = nil) {
        let systemManagedFileExists = systemManagedFileExists ?? Self.systemManagedFileIsThere()
        let override = environment[Self.managedFileVariable].flatMap { $0.isEmpty ? nil : $0 }
        self.init(
            userFile: XDGDirectories(environment: environment).config + "/settings.json",
            managedFile: systemManagedFileExists ? Self.defaultManagedFile : override ?? Self.defaultManagedFile
        )
    }
}
