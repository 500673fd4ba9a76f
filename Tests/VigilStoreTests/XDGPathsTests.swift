import Foundation
import Testing
import VigilSettings
import VigilStore

/// The XDG rules in one place (VigilPaths), as the settings and the database see them: an unset,
/// empty or relative variable is ignored for the default under HOME.
@Suite("XDG directories")
struct XDGPathsTests {
    @Test func absoluteVariablesAreUsedOthersAreIgnored() {
        let home = "/home/user"
        #expect(VigilDatabase.defaultPath(environment: ["HOME": home, "XDG_DATA_HOME": "/data"]) == "/data/vigil/vigil.sqlite")
        for ignored in ["", "relative/dir", "./x"] {
            #expect(
                VigilDatabase.defaultPath(environment: ["HOME": home, "XDG_DATA_HOME": ignored]) == "/home/user/.local/share/vigil/vigil.sqlite", "\(ignored)")
            #expect(
                SettingsLocations(environment: ["HOME": home, "XDG_CONFIG_HOME": ignored]).userFile == "/home/user/.config/vigil/settings.json", "\(ignored)")
        }
        #expect(SettingsLocations(environment: ["HOME": home, "XDG_CONFIG_HOME": "/etc/xdg-user"]).userFile == "/etc/xdg-user/vigil/settings.json")
    }
}
