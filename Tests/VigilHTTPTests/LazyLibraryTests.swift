import CLazyLibrary
import Foundation
import Testing
import VigilTestSupport

/// The libraries Vigil loads on first use (libcurl, libsecret): resolved all or nothing, and
/// named in the binary's `.note.dlopen` (systemd's dlopen metadata) so that packaging tools and
/// `readelf -n` see them (issue 38).
@Suite("dlopen'ed libraries")
struct LazyLibraryTests {
    /// A table with one function the library lacks fills no slot, not even the ones found first.
    @Test func aMissingFunctionFillsNoSlot() throws {
        var found: UnsafeMutableRawPointer?
        var missing: UnsafeMutableRawPointer?
        let names = [strdup("strlen"), strdup("vigil_no_such_function")]
        defer { names.forEach { free($0) } }
        var problem = [CChar](repeating: 0, count: 200)
        let failed = withUnsafeMutablePointer(to: &found) { first in
            withUnsafeMutablePointer(to: &missing) { second in
                let table = [vigil_lazy_symbol(name: names[0], slot: first), vigil_lazy_symbol(name: names[1], slot: second)]
                return vigil_lazy_load("libc.so.6", table, table.count, &problem, problem.count, nil) != nil
            }
        }
        #expect(failed)
        #expect(found == nil && missing == nil, "all or nothing: strlen was found, yet its slot stays empty")
        #expect(String(decoding: problem.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).contains("libc.so.6 has no vigil_no_such_function"))
    }

    /// `readelf -n` on the built vigil names libcurl and libsecret in `.note.dlopen` notes (FDO,
    /// type 0x407c0c0a), each a JSON array with the soname.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/objcopy"), "needs binutils"))
    func theBinaryNamesWhatItLoads() throws {
        let notes = try TestPaths.temporaryDirectory().appendingPathComponent("notes.bin").path
        let copied = try CommandRunner.run("/usr/bin/objcopy", ["-O", "binary", "--only-section=.note.dlopen", TestPaths.vigilBinary, notes])
        #expect(copied.status == 0, "\(copied.standardError)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: notes))
        var sonames: [String] = []
        var offset = 0
        // Each note: namesz, descsz, type (4 bytes each), the name and the value, each padded to 4.
        while offset + 12 <= bytes.count {
            func word(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
            let (namesz, descsz, type) = (word(offset), word(offset + 4), word(offset + 8))
            let name = offset + 12
            let value = name + (namesz + 3) / 4 * 4
            #expect(type == 0x407c_0c0a && String(decoding: bytes[name..<name + namesz - 1], as: UTF8.self) == "FDO")
            let json = bytes[value..<value + descsz - 1]
            let array = try #require(try JSONSerialization.jsonObject(with: Data(json)) as? [[String: Any]])
            sonames += array.flatMap { $0["soname"] as? [String] ?? [] }
            offset = value + (descsz + 3) / 4 * 4
        }
        #expect(sonames.sorted() == ["libcurl.so.4", "libsecret-1.so.0"])
    }
}
