import Foundation
import Testing
import VigilSettings

@Suite("Settings precedence")
struct SettingsPrecedenceTests {
    @Test func environmentBeatsUserBeatsManagedBeatsDefault() throws {
        var bed = try SettingsTestbed()
        try bed.writeManaged(#"{"log.level": "error", "log.format": "json", "log.single-lined": false}"#)
        try bed.writeUser(#"{"log.level": "warning", "log.format": "json-composed"}"#)
        bed.environment = ["VIGIL_LOG_LEVEL": "debug"]
        let settings = try bed.load()
        #expect(settings[.logLevel] == "debug")
        #expect(settings["log.level"]?.source == .environment)
        #expect(settings[.logFormat] == "json-composed")
        #expect(settings["log.format"]?.source == .user)
        #expect(settings[.logSingleLined] == false)
        #expect(settings["log.single-lined"]?.source == .managed)
        #expect(settings[.logPrivacyMask] == true)
        #expect(settings["log.privacy-mask"]?.source == .default)
        #expect(settings.issues.isEmpty, "\(settings.issues)")
    }

    @Test func everyLayerIsRecordedInOrder() throws {
        var bed = try SettingsTestbed()
        try bed.writeManaged(#"{"connection.plain-http-policy": "forbidden"}"#)
        try bed.writeUser(#"{"connection.plain-http-policy": "warn"}"#)
        bed.environment = ["VIGIL_CONNECTION_PLAIN_HTTP_POLICY": "forbidden"]
        let entry = try #require(try bed.load()["connection.plain-http-policy"])
        #expect(entry.layers.map(\.source) == [.environment, .user, .managed, .default])
        #expect(entry.layers.map(\.location) == ["VIGIL_CONNECTION_PLAIN_HTTP_POLICY", bed.userPath, bed.managedPath, "built in"])
        #expect(entry.layers.map(\.value) == [.string("forbidden"), .string("warn"), .string("forbidden"), .string("warn")])
    }

    @Test func noFilesMeansDefaults() throws {
        let settings = try SettingsTestbed().load()
        #expect(settings.issues.isEmpty)
        for definition in SettingsCatalog.all {
            #expect(settings[definition.key]?.value == definition.defaultValue)
            #expect(settings[definition.key]?.source == .default)
        }
        #expect(
            settings[.preferredAuthenticationMethods] == [
                "com.owncloud.openid-connect", "com.owncloud.oauth2", "com.nextcloud.login-flow-v2", "com.owncloud.basicauth",
            ])
        #expect(settings[.plainHTTPPolicy] == "warn")
        #expect(settings[.logPrivacyMask] == true)
    }

    @Test func nestedAndFlatKeysAreTheSame() throws {
        let bed = try SettingsTestbed()
        try bed.writeUser(#"{"log": {"level": "notice", "only-tags": ["http", "tls"]}, "bookmark.url-editable": false}"#)
        let settings = try bed.load()
        #expect(settings[.logLevel] == "notice")
        #expect(settings[.logOnlyTags] == ["http", "tls"])
        #expect(settings[.urlEditable] == false)
    }

    /// The variable name Vigil documents is the one swift-configuration's provider reads.
    @Test(arguments: SettingsCatalog.all.filter { $0.scope == .any })
    func documentedVariableIsTheOneRead(definition: SettingDefinition) throws {
        var bed = try SettingsTestbed()
        let candidates = ["7", "70", "false", definition.kind.allowedValues?.last ?? "", "https://cloud.example", "2.5.29.32.0", "x"]
        let text = try #require(candidates.first { (try? definition.kind.parse(text: $0).get()) != nil })
        bed.environment = [definition.environmentVariable: text]
        let entry = try #require(try bed.load()[definition.key])
        #expect(entry.source == .environment, "\(definition.environmentVariable) was not read for \(definition.key)")
    }

    @Test func listsFromTheEnvironment() throws {
        var bed = try SettingsTestbed()
        bed.environment = [
            "VIGIL_CONNECTION_ALLOWED_AUTHENTICATION_METHODS": "com.owncloud.oauth2, com.owncloud.basicauth", "VIGIL_LOG_OMIT_TAGS": #"["a","b,c"]"#,
        ]
        let settings = try bed.load()
        #expect(settings[.allowedAuthenticationMethods] == ["com.owncloud.oauth2", "com.owncloud.basicauth"])
        #expect(settings[.logOmitTags] == ["a", "b,c"])
    }
}
