import Foundation
import Testing
import VigilSettings

@Suite("Settings validation")
struct SettingsValidationTests {
    /// Values a user file may not hold, with a word the message must contain.
    static let invalidUserValues: [(String, String, String)] = [
        (#""log.level": "loud""#, "log.level", "expected one of: trace"),
        (#""log.level": 3"#, "log.level", "got a number"),
        (#""log.privacy-mask": "yes""#, "log.privacy-mask", "expected boolean"),
        (#""log.maximum-message-size": -1"#, "log.maximum-message-size", "out of range"),
        (#""log.maximum-message-size": 1.5"#, "log.maximum-message-size", "not a whole number"),
        (#""authentication-oauth2.oa2-redirect-port": 70000"#, "authentication-oauth2.oa2-redirect-port", "out of range"),
        (#""bookmark.default-url": "ftp://x""#, "bookmark.default-url", "http(s) URL"),
        (#""bookmark.default-url": "not a url""#, "bookmark.default-url", "http(s) URL"),
        (#""http.user-agent": "Vigil {{secret}}""#, "http.user-agent", "unknown placeholder {{secret}}"),
        (#""http.user-agent": "Vigil {{app.version""#, "http.user-agent", "unclosed"),
        (
            #""connection.allowed-authentication-methods": ["com.owncloud.kerberos"]"#, "connection.allowed-authentication-methods",
            "may hold: com.owncloud.basicauth"
        ),
        (
            #""connection.preferred-authentication-methods": ["com.owncloud.oauth2", "com.owncloud.oauth2"]"#, "connection.preferred-authentication-methods",
            "twice"
        ),
        (#""log.only-tags": [1, 2]"#, "log.only-tags", "holds a number"),
        (#""bookmark.url-editable": null"#, "bookmark.url-editable", "got null"),
        (#""connection.minimum-tls-version": "1.0""#, "connection.minimum-tls-version", "1.2, 1.3"),
    ]

    @Test(arguments: invalidUserValues)
    func invalidUserValueIsAnErrorWithFileKeyAndAllowed(member: String, key: String, expected: String) throws {
        let bed = try SettingsTestbed()
        try bed.writeUser("{\(member)}")
        let settings = try bed.load()
        let issue = try #require(settings.errors.first)
        #expect(issue.source == .user)
        #expect(issue.location == bed.userPath)
        #expect(issue.key == key)
        #expect(issue.message.contains(expected), "\(issue.message)")
        // The invalid value is not used: the default stays in force.
        #expect(settings[key]?.source == .default)
        #expect(settings[key]?.layers.first?.ignoredBecause?.hasPrefix("invalid") == true)
    }

    @Test func invalidManagedValueStopsLoadingAndSaysWhy() throws {
        let bed = try SettingsTestbed()
        try bed.writeManaged(#"{"log.level": "loud", "log.privacy-mask": "no"}"#)
        do {
            _ = try bed.load()
            Issue.record("a broken managed file must stop loading")
        } catch let error as SettingsError {
            #expect(error.code == .brokenManagedFile)
            #expect(error.reason.contains(bed.managedPath))
            #expect(error.reason.contains("log.level"))
            #expect(error.reason.contains("log.privacy-mask"))
        }
    }

    /// A lock that names no setting would leave the setting it meant open: the managed file is
    /// broken (Vigil does not start), the unknown name and the nearest known key said.
    @Test(arguments: ["user-settings.disallow", "user-settings.allow"])
    func aTypoInALockFailsClosed(lock: String) throws {
        let bed = try SettingsTestbed()
        try bed.writeManaged("{\"\(lock)\": [\"log.level\", \"connection.revocation-polcy\"]}")
        do {
            _ = try bed.load()
            Issue.record("a lock naming no setting must stop loading")
        } catch let error as SettingsError {
            #expect(error.code == .brokenManagedFile)
            #expect(error.reason.contains("\(lock) names \"connection.revocation-polcy\""), "\(error.reason)")
            #expect(error.reason.contains("did you mean connection.revocation-policy?"), "\(error.reason)")
            #expect(!error.reason.contains("\"log.level\""), "a known key is not a problem: \(error.reason)")
        }
    }

    /// A misspelt lock key is no lock: broken, the key meant named. The seeds' keys Vigil does not
    /// adopt may be listed (a managed file shared with the iOS app).
    @Test func aMisspeltLockKeyFailsClosedTheSeedsKeysDoNot() throws {
        let bed = try SettingsTestbed()
        try bed.writeManaged(#"{"user-settings.disalow": ["connection.revocation-policy"]}"#)
        do {
            _ = try bed.load()
            Issue.record("a misspelt lock key must stop loading")
        } catch let error as SettingsError {
            #expect(error.code == .brokenManagedFile && error.reason.contains("did you mean user-settings.disallow?"), "\(error.reason)")
        }
        let shared = try SettingsTestbed()
        try shared.writeManaged(#"{"user-settings.disallow": ["action.allowed", "log.level"]}"#)
        #expect(try shared.load()["log.level"]?.isLocked == true)
    }

    @Test(arguments: [
        ("{\"log.level\": \"info\"", "not valid JSON"),
        ("{\n \"a\": 1,\n \"b\": tru\n}", "line 3"),
        ("[\"log.level\"]", "must hold a JSON object, not a list"),
        ("\"text\"", "must hold a JSON object"),
    ])
    func unusableManagedFile(text: String, expected: String) throws {
        let bed = try SettingsTestbed()
        try bed.writeManaged(text)
        #expect(throws: SettingsError(.brokenManagedFile, "")) { try bed.load() }
        do { _ = try bed.load() } catch let error as SettingsError {
            #expect(error.reason.contains(expected), "\(error.reason)")
        }
    }

    @Test func managedFileThatIsADirectory() throws {
        let bed = try SettingsTestbed()
        try FileManager.default.createDirectory(atPath: bed.managedPath, withIntermediateDirectories: true)
        #expect(throws: SettingsError(.brokenManagedFile, "")) { try bed.load() }
    }

    @Test func brokenUserFileIsAnErrorNotACrash() throws {
        let bed = try SettingsTestbed()
        try bed.writeUser("{ not json")
        let settings = try bed.load()
        #expect(settings.errors.count == 1)
        #expect(settings.errors.first?.message.contains("not valid JSON") == true)
        #expect(settings[.logLevel] == "info")
    }

    @Test func invalidEnvironmentValueNamesTheVariable() throws {
        var bed = try SettingsTestbed()
        bed.environment = ["VIGIL_LOG_PRIVACY_MASK": "maybe"]
        let settings = try bed.load()
        let issue = try #require(settings.errors.first)
        #expect(issue.source == .environment)
        #expect(issue.location == "VIGIL_LOG_PRIVACY_MASK")
        #expect(issue.message.contains("true or false"))
        #expect(settings[.logPrivacyMask] == true)
    }

    @Test func unknownKeysAndVariablesAreWarnings() throws {
        var bed = try SettingsTestbed()
        try bed.writeUser(#"{"log.levl": "debug"}"#)
        try bed.writeManaged(#"{"connection.plain-http": "forbidden"}"#)
        bed.environment = ["VIGIL_LOGLEVEL": "debug", "VIGIL_MANAGED_CONFIG": bed.managedPath]
        let settings = try bed.load()
        #expect(settings.errors.isEmpty)
        let warnings = settings.issues.filter { $0.severity == .warning }
        #expect(Set(warnings.map { $0.key ?? $0.location }) == ["log.levl", "connection.plain-http", "VIGIL_LOGLEVEL"])
    }

    @Test(arguments: [("true", true), ("False", false), ("yes", true), ("off", false), ("1", true), ("0", false)])
    func booleanText(text: String, value: Bool) throws {
        #expect(try SettingKind.bool.parse(text: text).get() == .bool(value))
    }
}
