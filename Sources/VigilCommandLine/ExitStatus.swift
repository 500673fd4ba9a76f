import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import VigilErrors
import VigilLogging
import VigilText

/// Exit codes, documented in docs/cli.md. The same for files and live hosts.
package enum ExitStatus {
    /// The chain is trusted.
    package static let trusted: Int32 = 0
    /// The chain was evaluated and is not trusted.
    package static let untrusted: Int32 = 1
    /// Nothing could be evaluated: bad input, unreadable file, unreachable host, not TLS.
    package static let error: Int32 = 2
    /// A server unavailable for now (it answered 404, 502 or 503 through every retry, or an
    /// access gateway in front of it let nobody through): try again later; EX_TEMPFAIL, which
    /// cron wrappers and systemd know.
    package static let temporaryFailure: Int32 = 75
    /// A wrong flag or argument (swift-argument-parser's usage error).
    package static let usage: Int32 = 64
    /// The configuration is broken (a managed file Vigil cannot use, invalid settings): EX_CONFIG.
    package static let configuration: Int32 = 78

    /// Prints `vigil: error: MESSAGE` on standard error and exits with `status`: the one way a
    /// command fails after parsing.
    package static func fail(_ message: String, status: Int32 = ExitStatus.error) -> Never {
        // Ctrl-C or SIGTERM made the command stop: that is what happened, whatever it then failed on.
        if Interruption.signal != nil { Interruption.die(message: message) }
        // Messages carry server and certificate text: escaped, one line.
        StandardStream.writeError((JournalStream.isStandardError ? "<3>" : "") + "vigil: error: \(SafeText.escaped(message))\n")
        EarlyStart.finish()
        Glibc.exit(status)
    }

    /// The one place an error becomes a message and an exit code: what Vigil or the server refused
    /// is 1, a missing or broken setting 78, anything else 2. Commands end with
    /// `catch { ExitStatus.fail(error) }` instead of a `catch` per type.
    package static func fail(_ error: any Error) -> Never {
        if let failure = error as? CommandFailure { failure.exit() }
        if Interruption.signal != nil { Interruption.die(message: error is CancellationError ? nil : described(error).message) }
        // A command's own exit status (a verdict, not an error) passes through as it is.
        if let code = error as? ExitCode {
            fflush(nil)
            EarlyStart.finish()
            Glibc.exit(code.rawValue)
        }
        let (message, status) = described(error)
        // For the administrator's log file: what failed, at error level (a refusal, exit 1, at
        // warning), the error masked to its type and code (MaskedError) unless masking is off.
        // The terminal already gets the message below, so the record is tagged as an outcome.
        let command = commandName(CommandLine.arguments)
        Logger(label: "vigil").privacy.log(
            level: status == untrusted ? .warning : .error, "vigil \(public: command) failed (exit \(public: status)): \(message)",
            metadata: ["tags": "\(StandardErrorSink.outcomeTag)"], error: error)
        fail(message + codeSuffix(error), status: status)
    }

    /// A Vigil error's type and code, as the masked log shows them (`[StoreError not-found]`):
    /// what scripts and tests match, whatever the words of the message; nothing for other errors.
    package static func codeSuffix(_ error: any Error) -> String {
        guard let error = error as? any VigilError else { return "" }
        return " [\(String(describing: type(of: error))) \(error.codeText)]"
    }

    /// The command's name (`account add`), never its arguments: they may be hosts or labels.
    package static func commandName(_ arguments: [String]) -> String {
        let words = arguments.dropFirst().prefix { !$0.hasPrefix("-") }
        guard let first = words.first, first.allSatisfy({ $0.isLowercase || $0 == "-" }) else { return "" }
        let groups: Set<String> = ["account", "certificates", "config", "simulator", "conformance", "log"]
        if groups.contains(first), let second = words.dropFirst().first, second.allSatisfy({ $0.isLowercase || $0 == "-" }) { return "\(first) \(second)" }
        return first
    }

    /// An error's message and exit code: the kind of failure each error declares where it is
    /// made (``VigilErrors/Outcome``), one exit code each; an error that is no Vigil error is 2.
    package static func described(_ error: any Error) -> (message: String, status: Int32) {
        guard let error = error as? any VigilError else { return ("\(error)", ExitStatus.error) }
        return (error.message, status(error.outcome))
    }

    /// The exit code of each kind of failure (docs/cli.md).
    static func status(_ outcome: Outcome) -> Int32 {
        switch outcome {
        case .refused: untrusted
        case .unavailable: temporaryFailure
        case .configuration: configuration
        case .error: ExitStatus.error
        }
    }
}
