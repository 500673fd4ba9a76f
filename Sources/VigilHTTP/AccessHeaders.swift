public import VigilErrors
import VigilText

/// An access proxy's service token (Cloudflare Access `CF-Access-Client-Id` and
/// `CF-Access-Client-Secret`, Pomerium, oauth2-proxy): header fields every request of one
/// account carries, to its origin only. The values are secrets: they never show themselves
/// (`«access headers»`), are kept in the keyring, and are masked in logs
/// (``VigilLogging/HTTPLogRedactor``).
public struct AccessHeaders: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let fields: [Field]

    struct Field: Sendable, Equatable {
        var name: String
        var value: String
    }

    /// Fields no access header may replace: the request's own credentials, framing and routing.
    public static let refusedNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer",
        "expect", "keep-alive", "proxy-connection", "x-request-id", "user-agent",
    ]

    /// Reads `Name: value` lines (blank lines and `#` comments skipped). Refuses a name that is
    /// not an HTTP token or is one of ``refusedNames``, a value with a control character, a name
    /// given twice, and a file with no field; the error names the line, never the value.
    public static func parse(_ text: String) throws(AccessHeadersError) -> AccessHeaders {
        var fields: [Field] = []
        // A line ends at LF or CR LF (Windows editors); a CR anywhere else is refused below.
        for (index, line) in TextLines.split(text).enumerated() {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let colon = line.firstIndex(of: ":") else {
                throw AccessHeadersError(.malformed, "Line \(index + 1) is not `Name: value`.")
            }
            let name = String(line[..<colon])
            let value = String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
            let token = name.utf8.allSatisfy { byte in
                (0x21...0x7E).contains(byte) && !"\"(),/:;<=>?@[\\]{}".utf8.contains(byte)
            }
            guard !name.isEmpty, token else { throw AccessHeadersError(.malformed, "Line \(index + 1): the name is not an HTTP field name.") }
            guard !refusedNames.contains(name.lowercased()) else {
                throw AccessHeadersError(.refusedName, "Line \(index + 1): \(name) cannot be an access header (it is the request's own).")
            }
            guard !value.isEmpty, !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw AccessHeadersError(.malformed, "Line \(index + 1): the value of \(name) is empty or holds a control character.")
            }
            guard !fields.contains(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw AccessHeadersError(.malformed, "Line \(index + 1): \(name) is given twice.")
            }
            fields.append(Field(name: name, value: value))
        }
        guard !fields.isEmpty else { throw AccessHeadersError(.malformed, "The file holds no `Name: value` line.") }
        return AccessHeaders(fields: fields)
    }

    private init(fields: [Field]) { self.fields = fields }

    /// The field names (not secret), in the file's order.
    public var names: [String] { fields.map(\.name) }

    /// The fields as `Name: value` lines, for the one call that keeps them (the keyring).
    public func withText<Result>(_ body: (String) throws -> Result) rethrows -> Result {
        try body(fields.map { "\($0.name): \($0.value)\n" }.joined())
    }

    /// The fields, for the one call that sends them.
    func withFields<Result>(_ body: ([(name: String, value: String)]) throws -> Result) rethrows -> Result {
        try body(fields.map { ($0.name, $0.value) })
    }

    /// The names only, `«access headers: NAME, ...»`; never a value.
    public var description: String { "«access headers: \(names.joined(separator: ", "))»" }
    /// `AccessHeaders(«access headers: ...»)`; never a value.
    public var debugDescription: String { "AccessHeaders(\(description))" }
    /// A mirror with no children, so that `dump` and the debugger show no value.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// Access headers and the one origin they go to (the account's server, where setup started).
public struct AccessHeadersBinding: Sendable {
    /// The header fields.
    public var headers: AccessHeaders
    /// The one https host and port they are sent to.
    public var origin: Endpoint

    /// Binds `headers` to `origin`.
    public init(headers: AccessHeaders, origin: Endpoint) {
        self.headers = headers
        self.origin = origin
    }

    func covers(_ endpoint: Endpoint) -> Bool { origin.isSameOrigin(as: endpoint) }
}

/// Why an access headers file was refused. The reason never holds a value.
public struct AccessHeadersError: CodedError, CustomStringConvertible, Sendable {
    /// What was wrong with the file, as a value that can grow without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case malformed
            case refusedName = "refused-name"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }
        /// A line that is not `Name: value`, a name given twice, an empty file.
        public static let malformed = Code(.malformed)
        /// A name the request owns (Authorization, Cookie, Host...).
        public static let refusedName = Code(.refusedName)
        /// The code's name (`malformed`, `refused-name`).
        public var description: String { base.rawValue }
    }

    /// What was wrong.
    public let code: Code
    /// The message for the user; names the line, never a value.
    public let reason: String
    /// The source file that threw (`#fileID`).
    public let file: String
    /// The source line that threw.
    public let line: Int

    /// An error with `code` and `reason`, located where it is made.
    public init(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) {
        self.code = code
        self.reason = reason
        self.file = file
        self.line = line
    }

    /// The reason.
    public var description: String { reason }
}
