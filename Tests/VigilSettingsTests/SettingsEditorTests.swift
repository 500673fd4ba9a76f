import Foundation
import Synchronization
import Testing
@_spi(Testing) import VigilSettings

@Suite("Writing the user file", .serialized)
struct SettingsEditorTests {
    @Test func setWritesAValidatedValueAndKeepsOtherKeys() throws {
        let bed = try SettingsTestbed()
        try bed.writeUser(#"{"log": {"level": "debug"}, "someone.elses-key": [1, 2]}"#)
        try SettingsEditor(settings: try bed.load()).set("connection.plain-http-policy", to: "forbidden")
        let settings = try bed.load()
        #expect(settings[.plainHTTPPolicy] == "forbidden")
        #expect(settings[.logLevel] == "debug")
        #expect(try bed.userFileText().contains("someone.elses-key"), "unknown keys are never lost")
        let attributes = try FileManager.default.attributesOfItem(atPath: bed.userPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func setCreatesTheFileAndItsDirectory() throws {
        let bed = try SettingsTestbed()
        try SettingsEditor(settings: try bed.load()).set("log.only-tags", to: "http, tls")
        #expect(try bed.load()[.logOnlyTags] == ["http", "tls"])
    }

    @Test func invalidValuesAndUnknownKeysAreRefused() throws {
        let bed = try SettingsTestbed()
        let editor = SettingsEditor(settings: try bed.load())
        #expect(throws: SettingsError(.invalidValue, "")) { try editor.set("log.level", to: "loud") }
        #expect(throws: SettingsError(.unknownKey, "")) { try editor.set("log.levl", to: "debug") }
        #expect(!FileManager.default.fileExists(atPath: bed.userPath))
    }

    @Test func unsetRemovesOnlyThatKey() throws {
        let bed = try SettingsTestbed()
        try bed.writeUser(#"{"log.level": "debug", "log.format": "json"}"#)
        #expect(try SettingsEditor(settings: try bed.load()).unset("log.level"))
        #expect(try !SettingsEditor(settings: try bed.load()).unset("log.level"))
        let settings = try bed.load()
        #expect(settings["log.level"]?.source == .default)
        #expect(settings[.logFormat] == "json")
    }

    @Test func aBrokenUserFileIsNeverOverwritten() throws {
        let bed = try SettingsTestbed()
        try bed.writeUser("{ \"log.level\": \"debug\", oops")
        let editor = SettingsEditor(settings: try bed.load())
        #expect(throws: SettingsError(.brokenUserFile, "")) { try editor.set("log.format", to: "json") }
        #expect(try bed.userFileText() == "{ \"log.level\": \"debug\", oops")
    }

    @Test func aCrashBeforeTheRenameLeavesTheOldFileIntact() throws {
        struct Crash: Error {}
        let bed = try SettingsTestbed()
        try bed.writeUser(#"{"log.level": "debug"}"#)
        let before = try bed.userFileText()
        let userPath = bed.userPath
        let observed = Mutex(("", ""))
        var editor = SettingsEditor(settings: try bed.load())
        editor.beforeRename = { temporary in
            // At this point the new content is complete on disk, the old file untouched.
            let seen = ((try? String(contentsOfFile: temporary, encoding: .utf8)) ?? "", (try? String(contentsOfFile: userPath, encoding: .utf8)) ?? "")
            observed.withLock { $0 = seen }
            throw Crash()
        }
        #expect(throws: Crash.self) { try editor.set("log.level", to: "error") }
        #expect(try bed.userFileText() == before)
        let (temporaryText, userText) = observed.withLock { $0 }
        #expect(temporaryText.contains("\"error\""))
        #expect(userText == before)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: (bed.userPath as NSString).deletingLastPathComponent)
        #expect(leftovers == ["settings.json"], "no temporary file is left behind")
    }
}
