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
}
