package import Foundation

/// Where the package, its test PKI and the built `vigil` binary are.
package enum TestPaths {
    /// Debian's headless-capable Chromium, when installed (`make bootstrap` installs it).
    package static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The package root (found from this file's path).
    package static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// A file in testcerts/.
    package static func testcert(_ name: String) -> String {
        root.appendingPathComponent("testcerts").appendingPathComponent(name).path
    }

    /// The SHA-256 fingerprint of a testcerts leaf, as `openssl x509 -fingerprint -sha256` prints it.
    package static func sha256Fingerprint(of name: String) throws -> String {
        try CommandRunner.run("/usr/bin/openssl", ["x509", "-in", testcert("\(name).pem"), "-noout", "-fingerprint", "-sha256"])
            .standardOutput.split(separator: "=").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }

    /// The CA bundle that trusts the test root.
    package static var caBundle: String { testcert("ca-bundle.pem") }

    /// Where the private keyring's files are, when the tests run inside
    /// `dbus-run-session -- scripts/keyring-session.sh` (as `make test` runs them); nil otherwise.
    package static var keyringDirectory: String? { ProcessInfo.processInfo.environment["KEYRING_SESSION_DIR"] }
    /// A real Secret Service runs for this test process (`make test`'s keyring session).
    package static var hasKeyring: Bool { keyringDirectory != nil }

    /// Network namespaces can be made here, as `vigil simulate --client` makes and prepares them
    /// (`unshare --user --map-root-user --net --mount`, loopback up, a route to every address). Where they cannot (a container without the
    /// capability), external clients are judged with `--no-network-namespace`, and said so once.
    package static let networkNamespaces: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "ip"
        process.arguments = [
            "--user", "--map-root-user", "--net", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
            "\(ip) link set lo up && \(ip) route add local 0.0.0.0/0 dev lo",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        let available = process.terminationStatus == 0
        if !available {
            FileHandle.standardError.write(
                Data("note: network namespaces cannot be made here; vigil simulate --client runs with --no-network-namespace in these tests.\n".utf8))
        }
        return available
    }()

    /// The `vigil` binary built next to the test bundle (or `VIGIL_BINARY`).
    package static var vigilBinary: String {
        if let path = ProcessInfo.processInfo.environment["VIGIL_BINARY"] { return path }
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("vigil").path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("vigil").path,
            root.appendingPathComponent(".build/debug/vigil").path,
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[2]
    }

    /// Writing to a socket or pipe whose reader has gone must be an error, not a signal that
    /// ends the test process.
    package static func ignoreBrokenPipes() { _ = ignoredSIGPIPE }
    private static let ignoredSIGPIPE: Bool = {
        signal(SIGPIPE, SIG_IGN)
        return true
    }()

    /// A new empty directory, inside this test process's own folder under the system temporary
    /// directory (`vigil-test-PID`), which is removed when the process exits: tests leave nothing
    /// behind however they end, short of a crash.
    package static func temporaryDirectory() throws -> URL {
        let url = runDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// This process's folder of temporary directories, removed at exit.
    static let runDirectory: URL = {
        let temporary = FileManager.default.temporaryDirectory
        let url = temporary.appendingPathComponent("vigil-test-\(getpid())")
        // Folders of test processes that died without running their exit handler (a crash, a
        // kill): removed by the next run, so that a crash leaves nothing for long either.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? [] where name.hasPrefix("vigil-test-") {
            guard let pid = Int32(name.dropFirst("vigil-test-".count)), pid == getpid() || kill(pid, 0) != 0 && errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
        atexit {
            try? FileManager.default.removeItem(at: FileManager.default.temporaryDirectory.appendingPathComponent("vigil-test-\(getpid())"))
        }
        return url
    }()
}
