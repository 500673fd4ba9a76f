import FoundationEssentials
import Glibc
package import VigilSettings
import VigilText

/// Loads settings for a command and reports what is wrong with them on standard error.
package enum SettingsContext {
    /// For every command but `vigil config`: a broken managed file or invalid values stop it (78).
    package static func load() throws -> Settings {
        let settings = try loadReporting()
        if !settings.errors.isEmpty {
            throw CommandFailure("the settings are invalid; fix them with `vigil config` (see `vigil config list`).", status: ExitStatus.configuration)
        }
        return settings
    }

    /// For `vigil config`: only a broken managed file stops it; other problems are shown.
    package static func loadReporting() throws -> Settings {
        do {
            let settings = try SettingsLoader().load()
            for issue in settings.issues {
                StandardStream.writeError("vigil: \(issue)\n")
            }
            return settings
        } catch let error as SettingsError {
            // Its outcome says a broken file is the configuration's failure (78).
            throw CommandFailure(error)
        } catch {
            throw CommandFailure("cannot load the settings: \(error)", status: ExitStatus.configuration)
        }
    }
}
