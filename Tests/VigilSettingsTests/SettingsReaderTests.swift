import Foundation
import Testing
import VigilSettings
import VigilTestSupport

/// A setting that no code reads is a lie to an administrator. Every key of the catalogue has a
/// typed key (`Setting+Keys.swift`), and every typed key is read somewhere in Sources/ (as
/// `settings[.name]`, `(.name)` or `Setting.name`), outside its declaration.
@Suite("Every setting has a reader")
struct SettingsReaderTests {
    static let sources = TestPaths.root.appendingPathComponent("Sources")

    /// NAME -> KEY, from the declarations.
    static func declaredKeys() throws -> [String: String] {
        let text = try String(contentsOf: sources.appendingPathComponent("VigilSettings/Setting+Keys.swift"), encoding: .utf8)
        var keys: [String: String] = [:]
        for line in text.split(separator: "\n") where line.contains("public static var ") {
            let parts = line.split(separator: "\"")
            let name = line.split(separator: " ").drop { $0 != "var" }.dropFirst().first?.dropLast() ?? ""
            if parts.count >= 2 { keys[String(name)] = String(parts[1]) }
        }
        return keys
    }

    @Test func everyCatalogueEntryHasATypedKey() throws {
        let declared = try Self.declaredKeys()
        #expect(declared.count > 40, "the declarations were read")
        let catalogue = Set(SettingsCatalog.all.map(\.key))
        #expect(catalogue.subtracting(declared.values).isEmpty, "catalogue entries without a typed key: \(catalogue.subtracting(declared.values).sorted())")
        #expect(Set(declared.values).subtracting(catalogue).isEmpty, "typed keys not in the catalogue: \(Set(declared.values).subtracting(catalogue).sorted())")
    }

    @Test func everyKeyIsReadBySomeCode() throws {
        var text = ""
        let walker = try #require(FileManager.default.enumerator(atPath: Self.sources.path))
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".swift"), !relative.hasSuffix("Setting+Keys.swift"), !relative.hasSuffix("SettingsCatalog.swift"),
                !relative.hasSuffix("SettingsDocumentation.swift")
            else { continue }
            text += (try? String(contentsOfFile: Self.sources.path + "/" + relative, encoding: .utf8)) ?? ""
        }
        let unread = try Self.declaredKeys().filter { name, _ in
            !["[.\(name)]", "(.\(name))", "Setting.\(name)"].contains { text.contains($0) }
        }
        #expect(unread.isEmpty, "settings no code reads (wire them or remove them from the catalogue): \(unread.values.sorted().joined(separator: ", "))")
    }
}
