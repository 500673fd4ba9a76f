/// A command that failed, thrown to the launcher (``CommandLauncher``), which alone turns it into
/// its message on standard error and its documented exit code (``ExitStatus/fail(_:status:)``):
/// a command never calls `exit` itself, so that its `defer` blocks run (a service stopped, a
/// listener closed) however it ends, as swift-argument-parser's `exit(withError:)` intends.
package struct CommandFailure: Error {
    /// A message of the command's own and its exit status; or an error the launcher describes.
    enum Kind {
        case message(String, status: Int32)
        case error(any Error)
    }
    let kind: Kind

    /// `vigil: error: MESSAGE`, exit `status` (2 by default).
    package init(_ message: String, status: Int32 = ExitStatus.error) {
        kind = .message(message, status: status)
    }

    /// `error` described as ``ExitStatus/described(_:)`` does (its message and exit status).
    package init(_ error: any Error) {
        if let failure = error as? CommandFailure {
            self = failure
        } else {
            kind = .error(error)
        }
    }

    /// Prints it and exits: the launcher's one way out.
    func exit() -> Never {
        switch kind {
        case .message(let message, let status): ExitStatus.fail(message, status: status)
        case .error(let error): ExitStatus.fail(error)
        }
    }
}
