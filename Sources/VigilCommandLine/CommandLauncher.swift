package import ArgumentParser
import FoundationEssentials
import Glibc
import Synchronization
import VigilErrors
import VigilText
import VigilThreads

/// How both executables run their commands: as swift-argument-parser's `main` does, except that
/// a synchronous command runs on the main thread (there its database and keyring calls block no
/// thread of the cooperative pool), and debug builds stop on a blocking call made from the pool
/// (``VigilThreads/BlockingQueue/checkNotOnCooperativePool(_:)``), which `make test` exercises
/// through the CLI tests and `vigil simulate`.
package enum CommandLauncher {
    /// `interruptible`: Ctrl-C and SIGTERM cancel the command (``Interruption``); false for an
    /// executable whose commands watch the signals themselves (`vigil-simulator`'s serve and
    /// simulate: two watchers of one signal would each miss it).
    @MainActor package static func run(_ root: any ParsableCommand.Type, interruptible: Bool = true) async {
        #if DEBUG
            BlockingQueue.enforcing.store(true, ordering: .relaxed)
        #endif
        var command: any ParsableCommand
        do {
            command = try root.parseAsRoot()
        } catch {
            EarlyStart.finish()
            // A mistyped flag is the error to name, before whatever `validate()` found missing.
            if root.exitCode(for: error) == .validationFailure,
                let unknown = UnknownOption.find(in: Array(CommandLine.arguments.dropFirst()), root: root)
            {
                StandardStream.writeError(unknown.message(replacingFirstLineOf: root.fullMessage(for: error)) + "\n")
                Glibc.exit(ExitCode.validationFailure.rawValue)
            }
            root.exit(withError: error)
        }
        do {
            if let command = command as? any AsyncParsableCommand {
                // Ctrl-C and SIGTERM cancel the command, which stops as its own code says
                // (Interruption); the launcher then says it was interrupted.
                let box = CommandBox(command: command)
                let running = Task { @MainActor in try await box.command.run() }
                if interruptible { Interruption.install { running.cancel() } }
                try await running.value
                // Ctrl-C came as the command finished its work: still the end a shell expects.
                if Interruption.signal != nil { Interruption.die(message: "the command had finished its work") }
            } else {
                // Nothing has suspended yet, so this is still the process's main thread: on Linux
                // the main actor resumes on a Dispatch worker after an `await`, and a synchronous
                // command's database calls would then run on a thread the check counts as the
                // pool's. Keep every `await` of the launch after this branch.
                precondition(OwnThread.isMain, "a synchronous command runs on the main thread")
                if interruptible { Interruption.install(cancel: nil) }
                try command.run()
            }
            EarlyStart.finish()
        } catch {
            // The one place a command's failure becomes its message and exit code: commands throw
            // (CommandFailure, a Vigil error, an ExitCode, an ImmediateExit), so their `defer`
            // blocks have run.
            if let end = error as? ImmediateExit { ImmediateExit.now(end.status) }
            EarlyStart.finish()
            if Interruption.signal != nil || error is CommandFailure || error is any VigilError { ExitStatus.fail(error) }
            root.exit(withError: error)
        }
    }
}

/// The command handed to the task that runs it; only that task uses it from then on.
private final class CommandBox: @unchecked Sendable {
    var command: any AsyncParsableCommand
    init(command: any AsyncParsableCommand) { self.command = command }
}
