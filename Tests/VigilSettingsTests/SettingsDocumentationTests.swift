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

    @Test func keysAreUniqueAndDefaultsValid() throws {
        #expect(Set(SettingsCatalog.all.map(\.key)).count == SettingsCatalog.all.count)
        for definition in SettingsCatalog.all {
            guard let value = definition.defaultValue else { continue }
            #expect(throws: Never.self, "\(definition.key)") { try definition.kind.parse(json: value.json).get() }
        }
    }
}
