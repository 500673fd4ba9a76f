import Foundation

/// One request as the journal records it: never a credential's header value or a body, only
/// whether they were there; the `User-Agent` and `X-Request-ID` (public by nature) as sent.
public struct JournalEntry: Sendable, Hashable, Codable {
    public var time: String
    public var host: String
    public var method: String
    public var path: String
    public var status: Int
    public var authorization: Bool
    public var cookie: Bool
    public var body: Bool
    /// Present (true) on what a man in the middle saw before forwarding to the genuine server.
    public var mitm: Bool?
    /// `https` or `http` (absent in journals written before it was recorded: https).
    public var scheme: String?
    /// The request carried a credential: an Authorization header, a cookie, or a form with a
    /// password, an authorization code, a PKCE verifier, a refresh token or a client secret (a man
    /// in the middle counts any body). Absent: false.
    public var credential: Bool?
    /// The `User-Agent` and `X-Request-ID` the client sent (cut to 200 characters), if any.
    public var userAgent: String?
    public var requestID: String?

    public init(
        time: String, host: String, method: String, path: String, status: Int, authorization: Bool, cookie: Bool, body: Bool,
        mitm: Bool? = nil, scheme: String? = nil, credential: Bool? = nil, userAgent: String? = nil, requestID: String? = nil
    ) {
        self.userAgent = userAgent.map { String($0.prefix(200)) }
        self.requestID = requestID.map { String($0.prefix(200)) }
        self.time = time
        self.host = host
        self.method = method
        self.path = path
        self.status = status
        self.authorization = authorization
        self.cookie = cookie
        self.body = body
        self.mitm = mitm
        self.scheme = scheme
        self.credential = credential
    }

    /// Whether the request carried a credential (see ``credential``).
    public var carriesCredential: Bool { credential ?? (authorization || cookie) }
}

/// The simulator's journal: JSON lines, one request each, in a file when given and the most
/// recent ``memoryLimit`` entries in memory (for tests and reports).
public final class Journal: @unchecked Sendable {  // all state behind `lock`
    private let lock = NSLock()
    private var stored: [JournalEntry] = []
    private let handle: FileHandle?
    public let memoryLimit: Int

    /// With `path`, entries are also appended to that file.
    public init(path: String? = nil, memoryLimit: Int = 10_000) throws {
        self.memoryLimit = memoryLimit
        if let path {
            if !FileManager.default.fileExists(atPath: path) {
                guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                    throw SimulatorError(.startFailed, "Cannot create the journal \(path).")
                }
            }
            guard let handle = FileHandle(forWritingAtPath: path) else { throw SimulatorError(.startFailed, "Cannot open the journal \(path).") }
            handle.seekToEndOfFile()
            self.handle = handle
        } else {
            handle = nil
        }
    }

    public func record(_ entry: JournalEntry) {
        let line = handle == nil ? nil : Data(entry.jsonLine.utf8)
        lock.lock()
        defer { lock.unlock() }
        stored.append(entry)
        if stored.count > memoryLimit { stored.removeFirst(stored.count - memoryLimit / 2) }
        if let line { handle?.write(line) }
    }

    public var entries: [JournalEntry] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    /// Now, as ISO 8601 UTC with seconds; the text is made once a second.
    static func timestamp() -> String {
        let seconds = Int(Date().timeIntervalSince1970)
        clock.lock.lock()
        defer { clock.lock.unlock() }
        if seconds != clock.second {
            clock.second = seconds
            clock.text = Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
        }
        return clock.text
    }

    private final class Clock: @unchecked Sendable {  // guarded by lock
        let lock = NSLock()
        var second = 0
        var text = ""
    }
    private static let clock = Clock()
}

extension JournalEntry {
    /// The entry as one JSON line (keys sorted), without JSONEncoder's cost.
    var jsonLine: String {
        func quoted(_ text: String) -> String {
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case let c where c.value < 0x20: out += String(format: "\\u%04x", c.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }
        var line = "{\"authorization\":\(authorization),\"body\":\(body),\"cookie\":\(cookie)"
        if let credential { line += ",\"credential\":\(credential)" }
        line += ",\"host\":\(quoted(host)),\"method\":\(quoted(method))"
        if mitm == true { line += ",\"mitm\":true" }
        line += ",\"path\":\(quoted(path))"
        if let requestID { line += ",\"requestID\":\(quoted(requestID))" }
        if let scheme { line += ",\"scheme\":\(quoted(scheme))" }
        line += ",\"status\":\(status),\"time\":\(quoted(time))"
        if let userAgent { line += ",\"userAgent\":\(quoted(userAgent))" }
        line += "}\n"
        return line
    }
}
