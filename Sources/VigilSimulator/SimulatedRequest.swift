import Foundation

/// A request as the simulator sees it, independent of the HTTP server library.
public struct SimulatedRequest: Sendable {
    /// The HTTP method.
    public var method: String
    /// Path and query, as sent.
    public var target: String
    /// Header names lower-cased.
    public var headers: [String: String]
    /// Whether the request has a body.
    public var hasBody: Bool
    /// The body (empty when none).
    public var body: [UInt8] = []
    /// Header names as sent (case kept, repeated names repeated).
    public var headerNames: [String] = []
    /// `https` or `http`.
    public var scheme: String
    /// Which simulated host (1, 2, 3).
    public var host: Int

    /// A request with no body bytes and no header names as sent.
    public init(method: String, target: String, headers: [String: String], hasBody: Bool, scheme: String, host: Int) {
        self.method = method
        self.target = target
        self.headers = headers
        self.hasBody = hasBody
        self.scheme = scheme
        self.host = host
    }

    var path: String { Self.path(of: target) }

    /// The path of a request target: up to the query.
    static func path(of target: String) -> String { target.firstIndex(of: "?").map { String(target[..<$0]) } ?? target }
    var query: [String: String] {
        guard let mark = target.firstIndex(of: "?") else { return [:] }
        return OIDCProvider.form(String(target[target.index(after: mark)...]))
    }
}

/// The simulator's answer.
public struct SimulatedResponse: Sendable {
    /// An answer that goes wrong on the wire.
    public enum Abort: Sendable, Hashable {
        /// Content-Length announces this many bytes; the body sent is shorter; the connection closes.
        case truncate(announcedLength: Int)
        /// Nothing is sent; the connection stays open (the client must time out).
        case never
        /// The head at once, then the body one byte every `milliseconds`.
        case trickle(milliseconds: Int)
    }

    /// The HTTP status.
    public var status: Int
    /// The header fields, in order.
    public var headers: [(String, String)]
    /// The body.
    public var body: [UInt8]
    /// How the answer goes wrong on the wire; nil: sent normally.
    public var abort: Abort?
    /// The scenario's fault gave this answer (not the normal server).
    public var fault = false
    /// The user whose credential (a password, a token the server issued) the server accepted.
    public var authenticatedUser: String?

    init(_ status: Int, _ headers: [(String, String)] = [], body: String = "") {
        self.status = status
        self.headers = headers
        self.body = Array(body.utf8)
    }

    init(_ status: Int, _ headers: [(String, String)], bytes: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = bytes
    }
}
