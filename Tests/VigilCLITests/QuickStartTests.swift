import Foundation
import Glibc
import Testing
import VigilTestSupport

/// The README's quick start, run as written: the block under its marker, with bash, the built
/// `vigil` first on PATH, in a private keyring session. Only the port is changed, to a free one
/// (another test may hold 8443).
@Suite(
    "README quick start", .serialized,
    .enabled(if: TestPaths.hasKeyring, "needs a Secret Service: run `make test` (dbus-run-session + gnome-keyring)"), .timeLimit(.minutes(3)))
struct QuickStartTests {
    static func block() throws -> String {
        let readme = try String(contentsOf: TestPaths.root.appendingPathComponent("README.md"), encoding: .utf8)
        guard let marker = readme.range(of: "<!-- quick-start:"), let open = readme.range(of: "```sh\n", range: marker.upperBound..<readme.endIndex),
            let close = readme.range(of: "\n```", range: open.upperBound..<readme.endIndex)
        else { throw CocoaError(.fileReadCorruptFile) }
        return String(readme[open.upperBound..<close.lowerBound])
    }

    /// A port with the next one free too (the simulator serves plain HTTP on port + 1).
    static func freePort() -> Int {
        for _ in 0..<50 {
            let port = Int.random(in: 20_000..<60_000)
            if ![port, port + 1].contains(where: Self.taken) { return port }
        }
        return 8443
    }

    static func taken(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } != 0
    }

    @Test func theQuickStartWorksAsWritten() throws {
        let block = try Self.block()
        #expect(block.hasPrefix("PORT=8443\n"), "the block starts by naming its port")
        let script = "set -e\n" + block.replacingOccurrences(of: "PORT=8443\n", with: "PORT=\(Self.freePort())\n")
        let directory = try TestPaths.temporaryDirectory().path
        let bin = (TestPaths.vigilBinary as NSString).deletingLastPathComponent
        let result = try CommandRunner.run(
            "/bin/bash", ["-c", script],
            environment: [
                "PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"), "XDG_CONFIG_HOME": directory + "/config",
                "XDG_STATE_HOME": directory + "/state", "XDG_DATA_HOME": directory + "/data", "HOME": directory,
            ], currentDirectory: directory)
        #expect(result.status == 0, "\(result.standardOutput)\(result.standardError)")
        #expect(
            result.standardOutput.contains("TRUSTED") && !result.standardOutput.contains("UNTRUSTED") && result.standardOutput.contains("added account"),
            "\(result.standardOutput)")
        #expect(result.standardOutput.contains(": OK: "), "account check --all, without --ca-file: \(result.standardOutput)")
        #expect(result.standardOutput.contains("0 failed"), "vigil simulate: \(result.standardOutput)")
    }
}
