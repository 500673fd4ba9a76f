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

    /// The hidden first argument that makes `vigil-simulator` the cell's way in:
    /// `vigil-simulator --cell-enter -- bwrap ...` leaves the user's session keyring for a new,
    /// empty one, then executes bwrap, so that no process of the cell (bwrap's own included)
    /// holds the user's kernel keys. (A session keyring belongs to a thread's credentials: it is
    /// changed here, in the one thread that then executes bwrap.)
    package static let enterFlag = "--cell-enter"

    /// `[helper, --cell-enter, --] + bwrap`.
    static func entering(_ bwrap: [String], helper: String) -> [String] {
        [helper, enterFlag, "--"] + bwrap
    }

    /// Runs the way in with `arguments` (after `--cell-enter`): never returns.
    package static func enter(_ arguments: [String]) -> Never {
        guard arguments.count >= 2, arguments[0] == "--" else { fail("usage: vigil-simulator --cell-enter -- BWRAP...") }
        guard vigil_join_new_session_keyring() == 0 else { fail("a session keyring of its own cannot be made (\(String(cString: strerror(errno))))") }
        execute(Array(arguments.dropFirst()))
    }

    /// Runs the helper with `arguments` (after `--cell-exec`): never returns.
    package static func run(_ arguments: [String]) -> Never {
        guard arguments.count >= 3, arguments[1] == "--" else { fail("usage: vigil-simulator --cell-exec SOCKET -- COMMAND...") }
        // A new, empty session keyring (the way in made one already; again, for a cell entered
        // another way): the invoker's kernel keys are not the client's.
        guard vigil_join_new_session_keyring() == 0 else { fail("a session keyring of its own cannot be made (\(String(cString: strerror(errno))))") }
        let listener = vigil_cell_filter_install()
        guard listener >= 0 else { fail("the cell's system-call filter cannot be installed (\(String(cString: strerror(-listener))))") }
        let socket = Tripwires.connect(to: arguments[0])
        guard socket >= 0 else { fail("the suite's filter socket cannot be reached (\(String(cString: strerror(errno))))") }
        let sent = vigil_send_descriptor(socket, listener)
        guard sent == 0 else { fail("the filter cannot be handed to the suite (\(String(cString: strerror(-sent))))") }
        close(socket)
        close(listener)
        execute(Array(arguments.dropFirst(2)))
    }

    /// `command` executed in this process's place; never returns.
    static func execute(_ command: [String]) -> Never {
        let copies = command.map { strdup($0) } + [nil]
        execv(command[0], copies)
        fail("\(command[0]) cannot be executed (\(String(cString: strerror(errno))))")
    }

    static func fail(_ reason: String) -> Never {
        FileHandle.standardError.write(Data("vigil-simulator: the client's cell: \(reason); the client was not run.\n".utf8))
        _exit(126)
    }
}
