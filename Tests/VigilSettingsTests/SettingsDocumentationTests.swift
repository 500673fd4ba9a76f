import Foundation
import Testing
import VigilSettings
import VigilTestSupport

@Suite("docs/settings.md")
struct SettingsDocumentationTests {
    @Test func committedDocsMatchTheCatalogue() throws {
        let path = TestPaths.root.appendingPathComponent("docs/settings.md").path
        let committed = try String(contentsOfFile: path, encoding: .utf8)
        #expect(committed == SettingsDocumentation.markdown(), "docs/settings.md is stale: run `vigil config docs > docs/settings.md`")
    }

    @Test func everyKeyIsDocumentedWithItsVariable() {
        let markdown = SettingsDocumentation.markdown()
        for definition in SettingsCatalog.all {
            #expect(markdown.contains("`\(definition.key)`"))
            if definition.scope == .any { #expect(markdown.contains(definition.environmentVariable)) }
        }
    }

    /// The loader asks the environment for settings only when a `VIGIL_` variable other than the
    /// control ones is set: no setting's variable may be a control variable, or be named otherwise.
    @Test func settingVariablesAreVigilNamesNoControlVariableHolds() {
        for definition in SettingsCatalog.all {
            let name = definition.environmentVariable
            #expect(name.hasPrefix("VIGIL_") && name == name.uppercased(), "\(definition.key): \(name)")
            #expect(!SettingsLocations.controlVariables.contains(name), "\(definition.key): \(name)")
        }
    }

    @Test func keysAreUniqueAndDefaultsValid() throws {
        #expect(Set(SettingsCatalog.all.map(\.key)).count == SettingsCatalog.all.count)
        for definition in SettingsCatalog.all {
            guard let value = definition.defaultValue else { continue }
            #expect(throws: Never.self, "\(definition.key)") { try definition.kind.parse(json: value.json).get() }
        }
    }

    /// The seeds' MDM keys that apply to Linux are read: every key named as in the seeds is in
    /// the catalogue, and every key found in the seeds' tables (shared/seeds/000_*.txt, whose
    /// OCR splits cells: keys are matched by the prefix the text keeps) is either read or listed
    /// with its reason. Without shared/ beside the clone only the first half runs.
    @Test func everySeedsKeyIsReadOrExcused() throws {
        let catalogue = Set(SettingsCatalog.all.map(\.key))
        #expect(SettingsCatalog.seedsKeys.isSubset(of: catalogue), "\(SettingsCatalog.seedsKeys.subtracting(catalogue))")
        let excused = SettingsCatalog.seedsKeysNotAdopted.flatMap { $0.key.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        #expect(Set(excused).isDisjoint(with: catalogue))
        let seeds = TestPaths.root.deletingLastPathComponent().appendingPathComponent("shared/seeds")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: seeds.path), let file = names.first(where: { $0.hasPrefix("000_") }) else {
            print("SettingsDocumentationTests: shared/seeds is not beside the clone; the seeds' keys were not read")
            return
        }
        let text = try String(contentsOf: seeds.appendingPathComponent(file), encoding: .utf8)
        let known = Array(catalogue) + excused
        var found: Set<String> = []
        for line in text.split(separator: "\n") where line.hasPrefix("|") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.replacingOccurrences(of: " ", with: "") }
            guard cells.count > 2 else { continue }
            // The namespaces of the seeds' tables; other dotted words there are file names and hosts.
            let namespaces =
                #"^(action|actions|app|authentication-oauth2|bookmark|connection|core|host-simulator|http|item-policy|log|measurements|passcode|user-settings)\.[a-zA-Z][a-zA-Z0-9-]*$"#
            for cell in cells[1...2] where cell.range(of: namespaces, options: .regularExpression) != nil {
                found.insert(cell)
            }
        }
        #expect(found.count > 40, "the seeds' tables were not read: \(found.count) keys")
        for key in found.sorted() {
            #expect(known.contains { $0 == key || ($0.hasPrefix(key) && key.count >= 12) }, "the seeds' \(key) is neither read nor excused")
        }
    }
}
