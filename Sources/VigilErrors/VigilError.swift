/// What every Vigil error is: a stable code (for scripts, exit codes and the masked log, which
/// shows only the type and the code), a reason for a person that never holds a secret, and the
/// place it was raised. Each module's error is a struct over a private code enum (so a new code
/// does not break a caller's `switch`), as swift-certificates and swift-nio-ssl do.
public protocol VigilError: Error, Sendable, CustomStringConvertible {
    /// The code as text (`certificate-rejected`): stable, never a secret.
    var codeText: String { get }
    /// One sentence for a person. Never contains a secret.
    var reason: String { get }
    /// Where the error was raised (`#fileID`, `#line`).
    var file: String { get }
    var line: Int { get }
    /// What kind of failure it is, decided where the error is made (the command line maps each
    /// kind to its exit code, docs/cli.md); ``Outcome/error`` unless the error says otherwise.
    var outcome: Outcome { get }
    /// What a person is told: ``reason``, unless the error has more to say (what to do next).
    var message: String { get }
}

/// The kinds of failure a command ends with, each one exit code (docs/cli.md).
public enum Outcome: Sendable, Hashable {
    /// Vigil, the server or a proxy refused (a certificate, a credential, a policy): exit 1.
    case refused
    /// Unavailable for now (a server in maintenance through every retry, a login to renew): exit 75.
    case unavailable
    /// A setting or a managed file is missing or broken: exit 78.
    case configuration
    /// Anything else: nothing could be done (unreachable, unreadable, damaged): exit 2.
    case error
}

extension VigilError {
    /// Anything else, unless the error says otherwise.
    public var outcome: Outcome { .error }
    /// The reason, unless the error has more to say.
    public var message: String { reason }
}

/// A Vigil error whose identity is its code: equal, hashed and named by it (the reason and the
/// place are not compared). The one shape every module's error struct shares, written once.
public protocol CodedError: VigilError, Hashable {
    /// The error's code type: a struct over a private enum, named by its description.
    associatedtype Code: Hashable & CustomStringConvertible & Sendable
    /// What went wrong.
    var code: Code { get }
}

extension CodedError {
    /// Errors are equal when their codes are (the reason and place are not compared).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    /// Hashes the code alone, as ``==`` compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
    /// The code as text (`certificate-rejected`).
    public var codeText: String { code.description }
}
