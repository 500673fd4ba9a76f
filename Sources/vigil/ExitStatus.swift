import Foundation
import VigilLogging

/// Exit codes, documented in docs/cli.md. The same for files and live hosts.
enum ExitStatus {
    /// The chain is trusted.
    static let trusted: Int32 = 0
    /// The chain was evaluated and is not trusted.
    static let untrusted: Int32 = 1
    /// Nothing could be evaluated: bad input, unreadable file, unreachable host, not TLS.
    static let error: Int32 = 2
    /// A wrong flag or argument (swift-argument-parser's usage error).
    static let usage: Int32 = 64
    /// The configuration is broken (a managed file Vigil cannot use, invalid settings): EX_CONFIG.
    static let configuration: Int32 = 78

    /// Prints `vigil: error: MESSAGE` on standard error and exits with `status`: the one way a
    /// command fails after parsing.
    static func fail(_ message: String, status: Int32 = ExitStatus.error) -> Never {
        // Messages carry server and certificate text: escaped, one line.
        FileHandle.standardError.write(Data("vigil: error: \(SafeText.escaped(message))\n".utf8))
        Foundation.exit(status)
    }
}
