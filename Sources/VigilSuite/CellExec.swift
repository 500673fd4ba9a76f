import CVigilSystem
import Foundation

/// The first program in a client's cell: `vigil-simulator --cell-exec SOCKET -- COMMAND...`
/// installs the cell's system-call filter (``vigil_cell_filter_install``: the mount family,
/// setns, module loading, kexec, reboot, swap, another architecture's ABI), hands its listener to
/// the suite over SOCKET (``Tripwires``), and executes the client in its place: the client and
/// every process it starts make those calls only to have them recorded and refused. Nothing of
/// the client runs before the filter is in place; when it cannot be, the client does not run.
package enum CellExec {
    /// The hidden first argument that makes `vigil-simulator` this helper.
    package static let flag = "--cell-exec"
    /// Where the suite's filter socket is bound in the cell.
    static let socketInCell = "/run/vigil-cell/filter.sock"

    /// `[helper, --cell-exec, SOCKET, --] + command`: `command` run under the filter.
    static func wrapping(_ command: [String], helper: String) -> [String] {
        [helper, flag, socketInCell, "--"] + command
    }

    /// This executable, as the cell sees it (`/proc/self/exe`).
    static var helper: String? { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") }

    /// Runs the helper with `arguments` (after `--cell-exec`): never returns.
    package static func run(_ arguments: [String]) -> Never {
        guard arguments.count >= 3, arguments[1] == "--" else { fail("usage: vigil-simulator --cell-exec SOCKET -- COMMAND...") }
        // A new, empty session keyring: the invoker's kernel keys are not the client's (no
        // namespace replaces the session keyring).
        guard vigil_join_new_session_keyring() == 0 else { fail("a session keyring of its own cannot be made (\(String(cString: strerror(errno))))") }
        let listener = vigil_cell_filter_install()
        guard listener >= 0 else { fail("the cell's system-call filter cannot be installed (\(String(cString: strerror(-listener))))") }
        let socket = Tripwires.connect(to: arguments[0])
        guard socket >= 0 else { fail("the suite's filter socket cannot be reached (\(String(cString: strerror(errno))))") }
        let sent = vigil_send_descriptor(socket, listener)
        guard sent == 0 else { fail("the filter cannot be handed to the suite (\(String(cString: strerror(-sent))))") }
        close(socket)
        close(listener)
        let command = Array(arguments.dropFirst(2))
        let copies = command.map { strdup($0) } + [nil]
        execv(command[0], copies)
        fail("\(command[0]) cannot be executed (\(String(cString: strerror(errno))))")
    }

    static func fail(_ reason: String) -> Never {
        FileHandle.standardError.write(Data("vigil-simulator: the client's cell: \(reason); the client was not run.\n".utf8))
        _exit(126)
    }
}
