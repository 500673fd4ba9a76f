import FoundationEssentials
import Glibc
import VigilCommandLine
import VigilPaths

/// `vigil-simulator`, the executable that plays `vigil simulator` and `vigil simulate` (the server
/// side and the suite), found as git finds its helpers: beside this executable (a build folder, or
/// `PREFIX/bin` after `make install`), else in `PREFIX/libexec/vigil`. Never on `PATH`: a helper
/// of another version or another origin is not run.
enum SimulatorExecutable {
    static let name = "vigil-simulator"

    /// The places looked in, in order.
    /// Empty when this executable's own absolute path is unknown (no /proc): never a path
    /// relative to the working directory, where anyone's `vigil-simulator` could sit.
    static func candidates() -> [String] {
        guard let executable = DataLocations.runningExecutable else { return [] }
        let directory = PathName.directory(of: executable)
        return [
            PathName.join(directory, name),
            PathName.join(PathName.join(PathName.directory(of: directory), "libexec/vigil"), name),
        ]
    }

    /// Replaces this process with `vigil-simulator` and the arguments this one was given (already
    /// parsed and validated here); exit 2 when it is not installed.
    static func run() throws -> Never {
        let places = candidates()
        guard let path = places.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw CommandFailure(
                places.isEmpty
                    ? "this command is played by \(name), and vigil cannot tell where it is installed itself (/proc/self/exe is unreadable)."
                    : "this command is played by \(name), which is not installed beside vigil (looked in \(places.joined(separator: " and "))); `make install` installs both."
            )
        }
        let arguments = [path] + CommandLine.arguments.dropFirst()
        var pointers = arguments.map { strdup($0) }
        pointers.append(nil)
        fflush(nil)
        // vigil-simulator watches its own signals; it must not start with them ignored.
        Interruption.restoreDefaults()
        execv(path, pointers)
        throw CommandFailure("cannot run \(path): \(String(cString: strerror(errno)))")
    }
}
