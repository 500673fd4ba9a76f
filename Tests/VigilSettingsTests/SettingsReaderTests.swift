import Foundation
import Testing
import VigilSettings
import VigilTestSupport

/// A setting that no code reads is a lie to an administrator: every key of the catalogue must be
/// read somewhere in Sources/ (by its name, outside the catalogue and the documentation).
@Suite("Every setting has a reader")
struct SettingsReaderTests {
    @Test func everyKeyIsReadBySomeCode() throws {
        let sources = TestPaths.root.appendingPathComponent("Sources").path
        var text = ""
        let walker = try #require(FileManager.default.enumerator(atPath: sources))
        while let relative = walker.nextObject() as? String {
            guard relative.hasSuffix(".swift"), !relative.hasSuffix("SettingsCatalog.swift"), !relative.hasSuffix("SettingsDocumentation.swift") else { continue }
            text += (try? String(contentsOfFile: sources + "/" + relative, encoding: .utf8)) ?? ""
        }
        let unread = SettingsCatalog.all.map(\.key).filter { !text.contains("\"\($0)\"") }
        #expect(unread.isEmpty, "settings no code reads (wire them or remove them from the catalogue): \(unread.joined(separator: ", "))")
    }
}
