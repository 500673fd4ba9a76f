import Foundation
import Testing
import VigilSettings

@Suite("Settings locking")
struct SettingsLockingTests {
    @Test func disallowedKeyInUserFileIsIgnoredWithAWarningNamingIt() throws {
        let bed = try SettingsTestbed()
        try bed.writeManaged(#"{"user-settings.disallow": ["connection.plain-http-policy"], "connection.plain-http-policy": "forbidden"}"#)
        try bed.writeUser(#"{"connection.plain-http-policy": "warn", "log.level": "debug"}"#)
        let settings = try bed.load()
        #expect(settings[.plainHTTPPolicy] == "forbidden")
        #expect(settings["connection.plain-http-policy"]?.source == .managed)
        #expect(settings["connection.plain-http-policy"]?.isLocked == true)
        #expect(settings[.logLevel] == "debug")
        let warning = try #require(settings.issues.first { $0.key == "connection.plain-http-policy" })
        #expect(warning.severity == .warning)
        #expect(warning.source == .user)
        #expect(warning.description.contains("connection.plain-http-policy"))
        #expect(warning.description.contains("user-settings.disallow"))
    }

    @Test func allowListLocksEverythingElse() throws {
        let bed = try SettingsTestbed()
        try bed.writeManaged(#"{"user-settings.allow": ["log.level"]}"#)
        try bed.writeUser(#"{"log.level": "debug", "log.format": "json"}"#)
        let settings = try bed.load()
        #expect(settings[.logLevel] == "debug")
        #expect(settings[.logFormat] == "text")
        #expect(settings["log.format"]?.isLocked == true)
        #expect(settings["log.level"]?.isLocked == false)
        #expect(settings.issues.map(\.key) == ["log.format"])
    }

    @Test func setRefusesALockedKeyAndLeavesTheFileAlone() throws {
        let bed = try SettingsTestbed()
        try bed.writeManaged(#"{"user-settings.disallow": ["log.privacy-mask"]}"#)
        try bed.writeUser(#"{"log.level": "debug"}"#)
        let before = try bed.userFileText()
        let editor = SettingsEditor(settings: try bed.load())
        #expect(throws: SettingsError(.lockedKey, "")) { try editor.set("log.privacy-mask", to: "false") }
        #expect(try bed.userFileText() == before)
    }

    @Test func lockListsAreManagedOnly() throws {
        var bed = try SettingsTestbed()
        try bed.writeUser(#"{"user-settings.allow": ["log.level"]}"#)
        bed.environment = ["VIGIL_USER_SETTINGS_DISALLOW": "log.level"]
        let settings = try bed.load()
        #expect(settings[.userSettingsAllow] == nil)
        #expect(settings[.userSettingsDisallow] == nil)
        #expect(settings.issues.filter { $0.severity == .warning }.count == 2)
        let editor = SettingsEditor(settings: settings)
        #expect(throws: SettingsError(.managedOnlyKey, "")) { try editor.set("user-settings.allow", to: "log.level") }
    }

    /// A lock holds against the environment too: the override is ignored with a warning, and a
    /// list the administrator set cannot be emptied by an override.
    @Test func theEnvironmentCannotLiftALock() throws {
        var bed = try SettingsTestbed()
        try bed.writeManaged(
            #"{"user-settings.disallow": ["log.level", "bookmark.url-editable", "connection.pinned-public-keys"], "log.level": "error", "bookmark.url-editable": false, "connection.pinned-public-keys": ["127.0.0.1=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]}"#
        )
        bed.environment = ["VIGIL_LOG_LEVEL": "trace", "VIGIL_BOOKMARK_URL_EDITABLE": "true", "VIGIL_CONNECTION_PINNED_PUBLIC_KEYS": ","]
        let settings = try bed.load()
        #expect(settings[.logLevel] == "error")
        #expect(settings[.urlEditable] == false)
        #expect(settings[.pinnedPublicKeys] == ["127.0.0.1=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="])
        for key in ["log.level", "bookmark.url-editable", "connection.pinned-public-keys"] {
            #expect(settings[key]?.source == .managed && settings[key]?.isLocked == true, "\(key)")
            let warning = try #require(settings.issues.first { $0.key == key && $0.source == .environment }, "\(key)")
            #expect(warning.severity == .warning && warning.description.contains("user-settings.disallow"))
        }
    }

    /// An unlocked key still takes the environment's value (the precedence is unchanged).
    @Test func anUnlockedKeyFollowsTheEnvironment() throws {
        var bed = try SettingsTestbed()
        try bed.writeManaged(#"{"user-settings.disallow": ["log.format"], "log.level": "error"}"#)
        bed.environment = ["VIGIL_LOG_LEVEL": "trace"]
        #expect(try bed.load()[.logLevel] == "trace")
    }

    /// On a machine with the system managed file, VIGIL_MANAGED_CONFIG cannot point elsewhere.
    @Test func theManagedFileCannotBeMovedWhereOneExists() {
        let environment = ["VIGIL_MANAGED_CONFIG": "/tmp/mine.json", "HOME": "/home/u"]
        #expect(SettingsLocations(environment: environment, systemManagedFileExists: true).managedFile == "/etc/vigil/managed.json")
        #expect(SettingsLocations(environment: environment, systemManagedFileExists: false).managedFile == "/tmp/mine.json")
    }
}
