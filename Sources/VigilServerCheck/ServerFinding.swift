public import VigilErrors
import VigilHTTP

/// One thing `vigil server check` found in a server's setup: a code a pipeline can assert on, a
/// level (what `--fail-on` compares), what it allows, and the nginx and Apache directives that fix it.
public struct ServerFinding: Sendable, Hashable, Codable {
    /// How much it matters.
    public enum Level: String, Sendable, Hashable, Codable, Comparable, CaseIterable {
        /// Worth knowing.
        case notice
        /// Weaker than it should be: fix it.
        case warning
        /// An attack it allows now.
        case error

        /// Notice first.
        public static func < (lhs: Self, rhs: Self) -> Bool { allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)! }
    }

    /// The stable code (`protocol-tls10`, `sweet32`, `no-forward-secrecy`...).
    public var code: String
    /// How much it matters.
    public var level: Level
    /// What was found and what it allows.
    public var message: String
    /// The nginx directive that fixes it, when one does.
    public var nginx: String?
    /// The Apache directive that fixes it, when one does.
    public var apache: String?

    /// A finding.
    public init(_ code: String, _ level: Level, _ message: String, nginx: String? = nil, apache: String? = nil) {
        self.code = code
        self.level = level
        self.message = message
        self.nginx = nginx
        self.apache = apache
    }
}

/// Why a server could not be checked. The reason holds no secret (none is ever sent).
public struct ServerCheckError: CodedError, Sendable, CustomStringConvertible {
    /// What went wrong, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unreachable = "unreachable"
            case notTLS = "not-tls"
            case invalidURL = "invalid-url"
            case badData = "bad-data"
            case deadline = "deadline"
            case noHandshake = "no-handshake"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Nothing answered (no name, refused, no route), or the proxy refused the way there.
        public static let unreachable = Code(.unreachable)
        /// Something answered, and accepted no TLS version offered.
        public static let notTLS = Code(.notTLS)
        /// Not an https URL.
        public static let invalidURL = Code(.invalidURL)

        /// The whole check took longer than its deadline (a server that answers slowly, or endlessly).
        public static let deadline = Code(.deadline)
        /// Something answered, and no TLS handshake with it completed (it broke off, sent what no
        /// TLS stack accepts, or stalled past the timeout).
        public static let noHandshake = Code(.noHandshake)
        /// A data file (the TLS profiles, the advisories) is missing or damaged.
        public static let badData = Code(.badData)

        /// The code's name (`unreachable`, `not-tls`).
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public var code: Code
    /// One sentence for a person.
    public var reason: String
    /// Where the error was raised (`#fileID`).
    public let file: String
    /// The line where the error was raised (`#line`).
    public let line: Int

    /// An error with `code` and `reason`, raised at the caller's file and line.
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// Why a transport error means the server could not be checked, the one mapping for the
    /// first handshake and the scan: nothing reached it or the proxy refused (`unreachable`), it
    /// is not TLS (the first handshake only), or no handshake completed (`no-handshake`).
    init(_ error: HTTPError, scanning: Bool, file: String = #fileID, line: Int = #line) {
        let reason = scanning ? "during the scan: " + error.reason : error.reason
        if error.reachedNothing || error.code == .proxy || error.proxyChallenge != nil {
            self.init(.unreachable, reason, file: file, line: line)
        } else if error.code == .notTLS, !scanning {
            self.init(.notTLS, reason, file: file, line: line)
        } else {
            self.init(.noHandshake, reason, file: file, line: line)
        }
    }

    /// `server check: <code>: <reason>`.
    public var description: String { "server check: \(code): \(reason)" }
}
