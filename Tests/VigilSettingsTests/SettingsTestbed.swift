import Foundation
import VigilSettings
import VigilTestSupport

/// A temporary user file and managed file, and an environment, for one test.
struct SettingsTestbed {
    let directory: URL
    var environment: [String: String] = [:]
    var userPath: String { directory.appendingPathComponent("config/vigil/settings.json").path }
    var managedPath: String { directory.appendingPathComponent("managed.json").path }

    init() throws {
        directory = try TestPaths.temporaryDirectory()
    }

    func writeUser(_ text: String) throws {
        try FileManager.default.createDirectory(atPath: (userPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try text.write(toFile: userPath, atomically: false, encoding: .utf8)
    }

    func writeManaged(_ text: String) throws {
        try text.write(toFile: managedPath, atomically: false, encoding: .utf8)
    }

    func load() throws -> Settings {
        try SettingsLoader(environment: environment, locations: SettingsLocations(userFile: userPath, managedFile: managedPath)).load()
    }

    /// The environment the CLI needs to use this testbed's files.
    var cliEnvironment: [String: String?] {
        var result: [String: String?] = ["XDG_CONFIG_HOME": directory.appendingPathComponent("config").path, "VIGIL_MANAGED_CONFIG": managedPath]
        for (key, value) in environment { result[key] = value }
        return result
    }

    func userFileText() throws -> String { try String(contentsOfFile: userPath, encoding: .utf8) }
}
