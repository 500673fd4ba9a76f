import Foundation
import Synchronization

/// One request as the journal records it: never a credential's header value or a body, only
/// whether they were there and where a credential was found; the `User-Agent` and
/// `X-Request-ID` (public by nature) as sent. An entry is made the moment a request's head
/// arrives (status 0 until it is answered), so that a request never finished, a body over the
/// size limit or a head that fails to parse is judged all the same.
public struct JournalEntry: Sendable, Hashable, Codable {
    /// When the request's head arrived (ISO 8601, UTC, to the second).
    public var time: String
    /// The address of the listener that received it.
    public var host: String
    /// The HTTP method (`?` for a head that failed to parse).
    public var method: String
    /// The path, without the query (`?` for a head that failed to parse).
    public var path: String
    /// The status answered; 0 while unanswered, or when the request was never finished.
    public var status: Int
    /// An Authorization header was present (never its value).
    public var authorization: Bool
    /// A Cookie header was present (never its value).
    public var cookie: Bool
    /// The request had a body.
    public var body: Bool
    /// Present (true) on what a man in the middle saw before forwarding to the genuine server.
    public var mitm: Bool?
    /// `https` or `http` (absent in journals written before it was recorded: https).
    public var scheme: String?
    /// The request carried a credential: an Authorization header, a cookie, a credential field
    /// (password, code, verifier, token, client secret) or a secret the server planted (a
    /// password, a token), in any common encoding, anywhere in the request. Absent: false.
    public var credential: Bool?
    /// The `User-Agent` and `X-Request-ID` the client sent (cut to 200 characters), if any.
    public var userAgent: String?
    /// The `X-Request-ID` the client sent (cut to 200 characters), if any.
    public var requestID: String?
    /// Where a credential was found, in words (`the Authorization header`, `the query (base64)`).
    public var found: [String]?
    /// The server accepted a credential it knows on this request (the right password, a token
    /// it issued): the only proof of a login. Absent: false.
    public var accepted: Bool?
    /// The accepted credential was a token the server issued (not a password).
    public var acceptedToken: Bool?
    /// The scenario's fault answered this request (a redirect, an error, a cut answer), rather
    /// than the normal server.
    public var fault: Bool?
    /// False for a head that failed to parse (method and path are then `?`).
    public var parsed: Bool?
    /// The connection it came on (``ConnectionEntry/id``).
    public var connection: Int?
    /// The request carried the scenario's proxy password (``ProxyPlan``), in any common encoding:
    /// a proxy's password belongs to the proxy alone. Absent: false.
    public var proxyPassword: Bool?
    /// A test user's password (as sent, in its Basic form or any encoding the search knows) was
    /// in the request; looked for on a login provider's host, where tokens may go but a
    /// password never does.
    public var password: Bool?
    /// The access proxy's header fields (its service token) the request carried, lower-cased;
    /// nil when none.
    public var accessHeaders: [String]?

    /// An entry; `userAgent` and `requestID` are cut to 200 characters.
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
    /// Whether the server accepted the request's credential (see ``accepted``).
    public var credentialAccepted: Bool { accepted ?? false }
}

/// One connection a listener accepted: what the client offered in its TLS ClientHello, how the
/// handshake ended, and how many bytes of application data the client sent after it. This is
/// the ground truth under the requests: a client that aborts an untrusted handshake sends none.
public struct ConnectionEntry: Sendable, Hashable, Codable {
    /// In the order connections were accepted, from 0, across every listener.
    public var id: Int
    /// When the connection was accepted (ISO 8601, UTC, to the second).
    public var time: String
    /// The address of the listener that accepted it.
    public var host: String
    /// `https` or `http`.
    public var scheme: String
    /// The testcerts case the listener presented (https only).
    public var certificate: String?
    /// A man in the middle's listener.
    public var mitm: Bool?
    /// The server name the ClientHello asked for (SNI), if any.
    public var serverName: String?
    /// Where a planted secret was in the ClientHello (its server name or ALPN names, which cross
    /// the network in clear), with the encoding it was found under; nil when none was.
    public var secretInClientHello: [String]?
    /// The versions the ClientHello offered (`1.3`, `1.2`...), if it was seen.
    public var offeredVersions: [String]?
    /// `none` (no handshake yet or plain HTTP), `completed`, or `failed`.
    public var handshake: String
    /// Why the handshake failed, as the TLS stack says it (an alert from the client, a protocol error).
    public var handshakeError: String?
    /// The application protocol the handshake agreed by ALPN (`h2`, `http/1.1`); nil when none was.
    public var applicationProtocol: String?
    /// Bytes of application data the client sent (after the handshake; all bytes for plain HTTP).
    public var applicationBytes: Int
    /// The subject of the client certificate the client presented (an identity disclosed to
    /// this host), when the handshake completed with one.
    public var clientCertificate: String?
    /// Still open.
    public var open: Bool
    /// The simulator cut it (still open after the client exited and a grace period).
    public var cut: Bool?
    /// The client sent bytes that are not TLS on a TLS port.
    public var clearText: Bool?
    /// Where a credential was in what the client sent in clear text (plain HTTP, or not TLS on a
    /// TLS port), found in the raw bytes whether or not they parse as a request.
    public var credentialInClear: [String]?
    /// The port the connection came from on 127.0.0.1 (a scenario's forward proxy records the
    /// ports of its tunnels: ``ProxyEntry/tunnelPort``).
    public var peerPort: Int?
}

/// The simulator's journal: JSON lines, one request each, in a file when given (written when the
/// request is answered or its connection ends) and the most recent ``memoryLimit`` entries in
/// memory (for tests and reports), with every connection.
public final class Journal: Sendable {
    private struct State {
        var stored: [JournalEntry] = []
        /// Entries dropped from the front of `stored` (so that an entry's number stays valid).
        var dropped = 0
        var links: [ConnectionEntry] = []
        /// Connections dropped from the front of `links` (ids stay valid).
        var linksDropped = 0
    }
    private let state = Mutex(State())
    private let handle: FileHandle?
    /// How many entries are kept in memory (the most recent).
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

    /// Records a finished entry (written to the file at once).
    public func record(_ entry: JournalEntry) {
        let number = begin(entry)
        finish(number)
    }

    /// Records an entry whose request is not finished yet; returns its number for ``update(_:_:)``
    /// and ``finish(_:)``.
    @discardableResult
    public func begin(_ entry: JournalEntry) -> Int {
        state.withLock { state in
            state.stored.append(entry)
            if state.stored.count > memoryLimit {
                let drop = state.stored.count - memoryLimit / 2
                state.stored.removeFirst(drop)
                state.dropped += drop
            }
            return state.dropped + state.stored.count - 1
        }
    }

    /// Changes entry `number` (nothing when it has left memory).
    public func update(_ number: Int, _ change: (inout JournalEntry) -> Void) {
        state.withLock { state in
            let index = number - state.dropped
            guard index >= 0, index < state.stored.count else { return }
            change(&state.stored[index])
        }
    }

    /// Entry `number` is final: its line goes to the file.
    public func finish(_ number: Int) {
        guard let handle else { return }
        state.withLock { state in
            let index = number - state.dropped
            guard index >= 0, index < state.stored.count else { return }
            handle.write(Data(state.stored[index].jsonLine.utf8))
        }
    }

    /// The requests kept in memory (at most ``memoryLimit``, the most recent), in order.
    public var entries: [JournalEntry] {
        state.withLock { $0.stored }
    }

    // MARK: - Connections

    /// A connection was accepted; returns its id.
    func open(host: String, scheme: String, certificate: String?, mitm: Bool, peerPort: Int? = nil) -> Int {
        state.withLock { state in
            let id = state.linksDropped + state.links.count
            state.links.append(
                ConnectionEntry(
                    id: id, time: Self.timestamp(), host: host, scheme: scheme, certificate: certificate, mitm: mitm ? true : nil,
                    handshake: "none", applicationBytes: 0, open: true, peerPort: peerPort))
            // A long-running simulator keeps the most recent ones (closed ones go first).
            if state.links.count > memoryLimit {
                let closed = state.links.prefix(state.links.count - memoryLimit / 2).prefix { !$0.open }.count
                state.links.removeFirst(closed)
                state.linksDropped += closed
            }
            return id
        }
    }

    func updateConnection(_ id: Int, _ change: (inout ConnectionEntry) -> Void) {
        state.withLock { state in
            let index = id - state.linksDropped
            guard index >= 0, index < state.links.count else { return }
            change(&state.links[index])
        }
    }

    /// The connections accepted so far (the most recent ``memoryLimit``), in order.
    public var connections: [ConnectionEntry] {
        state.withLock { $0.links }
    }

    /// How many connections were accepted so far (the next one's id).
    public var connectionCount: Int {
        state.withLock { $0.linksDropped + $0.links.count }
    }

    /// How many connections are still open.
    public var openConnections: Int {
        state.withLock { state in state.links.reduce(0) { $0 + ($1.open ? 1 : 0) } }
    }

    /// Now, as ISO 8601 UTC with seconds; the text is made once a second.
    static func timestamp() -> String {
        let seconds = Int(Date().timeIntervalSince1970)
        return clock.withLock { clock in
            if seconds != clock.second {
                clock.second = seconds
                clock.text = Date(timeIntervalSince1970: TimeInterval(seconds)).formatted(.iso8601)
            }
            return clock.text
        }
    }

    /// The second last formatted and its text.
    private static let clock = Mutex((second: 0, text: ""))
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
        var line = "{"
        if let accepted { line += "\"accepted\":\(accepted)," }
        if let acceptedToken { line += "\"acceptedToken\":\(acceptedToken)," }
        line += "\"authorization\":\(authorization),\"body\":\(body)"
        if let connection { line += ",\"connection\":\(connection)" }
        line += ",\"cookie\":\(cookie)"
        if let credential { line += ",\"credential\":\(credential)" }
        if let fault { line += ",\"fault\":\(fault)" }
        if let found { line += ",\"found\":[" + found.map(quoted).joined(separator: ",") + "]" }
        line += ",\"host\":\(quoted(host)),\"method\":\(quoted(method))"
        if mitm == true { line += ",\"mitm\":true" }
        if let parsed { line += ",\"parsed\":\(parsed)" }
        line += ",\"path\":\(quoted(path))"
        if let requestID { line += ",\"requestID\":\(quoted(requestID))" }
        if let scheme { line += ",\"scheme\":\(quoted(scheme))" }
        line += ",\"status\":\(status),\"time\":\(quoted(time))"
        if let userAgent { line += ",\"userAgent\":\(quoted(userAgent))" }
        line += "}\n"
        return line
    }
}
