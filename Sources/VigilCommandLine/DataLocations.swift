import FoundationEssentials
import Glibc
import VigilPaths

/// Where Vigil's data (the scenario fixtures, the test PKI, server check's data) is, from any working directory:
/// `$VIGIL_DATA_DIR`, then `share/vigil` beside the installed binary (`make install`), then the
/// source tree the binary was built from, then the working directory.
package enum DataLocations {
    /// This executable's absolute path, as the kernel knows it (`/proc/self/exe`); nil without
    /// /proc. What `vigil` looks beside for its data and for `vigil-simulator`.
    package static var runningExecutable: String? {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), path.hasPrefix("/") else { return nil }
        return path
    }

    package static func candidates() -> [String] {
        var roots: [String] = []
        if let data = ProcessInfo.processInfo.environment["VIGIL_DATA_DIR"], !data.isEmpty { roots.append(data) }
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let running = runningExecutable.map { URL(fileURLWithPath: $0) }
        let binDirectory = (running ?? executable).resolvingSymlinksInPath().deletingLastPathComponent()
        roots.append(binDirectory.deletingLastPathComponent().appendingPathComponent("share/vigil").path)
        // Sources/VigilCommandLine/DataLocations.swift -> the package root.
        roots.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path)
        roots.append(FileManager.default.currentDirectoryPath)
        return roots
    }

    /// The first `name` directory among the candidates (or the last candidate's, to be reported missing).
    package static func directory(_ name: String) -> String {
        let paths = candidates().map { PathName.join($0, name) }
        return paths.first { path in
            var status = stat()
            return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
        } ?? paths.last ?? name
    }

    package static var fixtures: String { directory("mitm-fixtures") }
    package static var testcerts: String { directory("testcerts") }
    /// `server check`'s dated data: Mozilla's TLS profiles, the advisories snapshot.
    package static var serverData: String { directory("server-data") }
}
