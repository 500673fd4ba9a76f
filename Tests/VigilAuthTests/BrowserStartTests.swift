import CVigilSystem
import Foundation
import Testing
import VigilTestSupport

@testable import VigilAuth

/// The browser Vigil starts for a login gets none of Vigil's descriptors: not the loopback
/// listener the authorization code comes back to, not a file opened without close-on-exec.
@Suite("Starting the browser")
struct BrowserStartTests {
    @Test func theChildInheritsNoDescriptor() async throws {
        let receiver = try LoopbackRedirectReceiver()
        let folder = try TestPaths.temporaryDirectory()
        let held = folder.appendingPathComponent("held").path
        let leaked = open(held, O_CREAT | O_WRONLY, 0o600)  // no O_CLOEXEC: closefrom must catch it
        #expect(leaked >= 3)
        defer { close(leaked) }
        let listing = folder.appendingPathComponent("fds").path
        // The child lists its own descriptors (ls opens one more, 3, for the listing itself).
        let arguments: [String] = ["/bin/sh", "-c", "exec ls /proc/self/fd > '\(listing)'"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        #expect(vigil_spawn_detached(&argv) == 0)
        var text: String?
        for _ in 0..<200 where text == nil {
            try await Task.sleep(for: .milliseconds(25))
            if let read = try? String(contentsOfFile: listing, encoding: .utf8), read.hasSuffix("\n") { text = read }
        }
        let descriptors = Set(try #require(text).split(separator: "\n").compactMap { Int32($0) })
        #expect(descriptors.isSubset(of: [0, 1, 2, 3]), "the child held \(descriptors.sorted())")
        #expect(!descriptors.contains(leaked) || leaked == 3, "the file opened without close-on-exec reached the child")
        #expect(receiver.port > 0)
    }
}
