import FoundationEssentials
import Glibc

/// Where Vigil keeps its files, by the XDG Base Directory rules, in one place: a variable that is
/// unset, empty or not an absolute path is ignored (the specification says so) and the default
/// under HOME is used.
///
/// - config: `$XDG_CONFIG_HOME/vigil` (`~/.config/vigil`): the user's settings file.
/// - data: `$XDG_DATA_HOME/vigil` (`~/.local/share/vigil`): the database.
/// - state: `$XDG_STATE_HOME/vigil` (`~/.local/state/vigil`): the log, its hashing key, locks.
package struct XDGDirectories: Sendable, Hashable {
    /// `$XDG_CONFIG_HOME`, or `~/.config`.
    package var configHome: String
    /// `$XDG_DATA_HOME`, or `~/.local/share`.
    package var dataHome: String
    /// `$XDG_STATE_HOME`, or `~/.local/state`.
    package var stateHome: String
    /// `$XDG_CACHE_HOME`, or `~/.cache`.
    package var cacheHome: String

    /// The directories named by `environment` (by default the process's), falling back to HOME, then to the user's home in the password database.
    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? Self.passwordDatabaseHome()
        func directory(_ variable: String, _ fallback: String) -> String {
            if let value = environment[variable], value.hasPrefix("/") { return value }
            return home + "/" + fallback
        }
        configHome = directory("XDG_CONFIG_HOME", ".config")
        dataHome = directory("XDG_DATA_HOME", ".local/share")
        stateHome = directory("XDG_STATE_HOME", ".local/state")
        cacheHome = directory("XDG_CACHE_HOME", ".cache")
    }

    /// Vigil's own directories.
    package var config: String { configHome + "/vigil" }
    /// Vigil's data directory, `dataHome/vigil`.
    package var data: String { dataHome + "/vigil" }
    /// Vigil's state directory, `stateHome/vigil`.
    package var state: String { stateHome + "/vigil" }

    /// The environment of a process whose home is `home`, every XDG directory under it (the
    /// suite's run and each external client get one of their own).
    package static func environment(home: String) -> [String: String] {
        [
            "HOME": home, "XDG_CONFIG_HOME": home + "/.config", "XDG_DATA_HOME": home + "/.local/share",
            "XDG_STATE_HOME": home + "/.local/state", "XDG_CACHE_HOME": home + "/.cache",
        ]
    }

    /// The user's home as the password database has it (`/` when it has none).
    package static func passwordDatabaseHome() -> String {
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return "/" }
        return String(cString: directory)
    }
}
