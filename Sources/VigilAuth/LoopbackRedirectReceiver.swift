import FoundationEssentials
import Glibc
import VigilHTTP
import VigilText
import VigilThreads

/// The loopback redirect of RFC 8252 (section 7.3): a listener on 127.0.0.1 that waits for the
/// browser to come back with the authorization response, answers it with a short page, and
/// returns the query. Only the first request to the callback path counts; others get a 404.
public final class LoopbackRedirectReceiver: @unchecked Sendable {  // fd immutable; closed once in deinit
    /// The port bound: the one asked for, or the free one the system picked.
    public let port: Int
    /// The callback path, `/callback`.
    public let path = "/callback"
    private let fd: Int32

    /// Binds 127.0.0.1 on `port` (0: a free one).
    public init(port: Int = 0) throws {
        // Close-on-exec: a browser Vigil starts never holds the socket the login's answer comes to.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw OAuth2Error(.redirectListener, "Cannot open a socket for the loopback redirect.") }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 8) == 0 else {
            close(fd)
            throw OAuth2Error(.redirectListener, "Cannot listen on 127.0.0.1:\(port) for the loopback redirect (\(String(cString: strerror(errno)))).")
        }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }

    /// `http://127.0.0.1:PORT/callback`.
    public var redirectURI: String { "http://127.0.0.1:\(port)\(path)" }

    /// Waits (on a thread of its own) for the authorization response and returns its query items.
    /// With `state`, a response carrying another state (a page or a local process trying to end
    /// or inject into the login) is answered with a short refusal and ignored; Vigil keeps
    /// waiting until the deadline, which also bounds a slow sender.
    public func waitForResponse(timeout: Duration, state: String? = nil) async throws -> [String: String] {
        let cancelled = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await OwnThread.run(named: "vigil-redirect") { try self.blockingWait(timeout: timeout, state: state, cancelled: cancelled) }
        } onCancel: {
            cancelled.set()
        }
    }

    /// A connection's whole budget to send its request line: a local process that connects and
    /// trickles bytes is dropped after it, and never holds the browser's callback back.
    static let connectionBudget: Duration = .seconds(2)
    /// Connections served at once; beyond, the oldest is dropped.
    static let maximumConnections = 16

    /// One open connection: its bytes so far and when its budget ends.
    struct Pending {
        var fd: Int32
        var bytes: [UInt8] = []
        var until: ContinuousClock.Instant
    }

    /// Serves every connection at once (one poll over the listener and all of them), each within
    /// ``connectionBudget`` and all within `timeout`: a slow or silent local connection can neither
    /// delay the real callback nor stretch the login's deadline.
    func blockingWait(timeout: Duration, state: String?, cancelled: CancellationFlag = CancellationFlag()) throws -> [String: String] {
        let deadline = ContinuousClock.now + timeout
        var ignored = 0
        var pending: [Pending] = []
        defer { for connection in pending { close(connection.fd) } }
        while true {
            if cancelled.isSet { throw OAuth2Error(.timeout, "The login was cancelled before the browser came back.") }
            let now = ContinuousClock.now
            guard deadline > now else {
                if ignored > 0 {
                    throw OAuth2Error(
                        .stateMismatch,
                        "\(ignored) authorization response(s) with another state than Vigil sent came back and were ignored; the login's own answer did not come in time."
                    )
                }
                throw OAuth2Error(
                    .timeout,
                    "The browser did not come back within \(timeout.components.seconds) seconds; allow more with --browser-timeout SECONDS or the setting authentication.browser-timeout-seconds."
                )
            }
            // Connections past their budget are dropped.
            for connection in pending where connection.until <= now { close(connection.fd) }
            pending.removeAll { $0.until <= now }

            var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)] + pending.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let next = pending.map(\.until).min().map { min($0, deadline) } ?? deadline
            let wait = min(next - now, .seconds(1))
            let milliseconds = Int32(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&fds, nfds_t(fds.count), max(milliseconds, 1)) > 0 else { continue }

            // Read what each ready connection sent; a complete request line is answered.
            var index = pending.count - 1
            while index >= 0 {
                defer { index -= 1 }
                guard fds[index + 1].revents != 0 else { continue }
                var buffer = [UInt8](repeating: 0, count: 1024)
                let count = read(pending[index].fd, &buffer, buffer.count)
                // Interrupted, or nothing after all: the connection waits for the next poll.
                if count < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) { continue }
                if count > 0 { pending[index].bytes.append(contentsOf: buffer[0..<count]) }
                let complete = pending[index].bytes.contains(0x0A)
                guard complete || count <= 0 || pending[index].bytes.count >= 8192 else { continue }
                let connection = pending.remove(at: index)
                defer { close(connection.fd) }
                guard complete, let target = Self.requestTarget(connection.bytes) else { continue }
                let (requestPath, query) = Self.split(target)
                guard requestPath == path, query["code"] != nil || query["error"] != nil else {
                    Self.answer(connection.fd, status: "404 Not Found", body: "Not found.")
                    continue
                }
                if let state, !OAuth2Login.constantTimeEqual(query["state"] ?? "", state) {
                    ignored += 1
                    Self.answer(
                        connection.fd, status: "400 Bad Request",
                        body: "This answer is not for the login Vigil is waiting for, and was ignored. Finish the login in the window Vigil opened.")
                    continue
                }
                let body =
                    query["error"] == nil
                    ? "Vigil received the authorization. You can close this window and go back to the terminal."
                    : "The authorization was refused. Close this window; the terminal says what happened."
                Self.answer(connection.fd, status: "200 OK", body: body)
                return query
            }

            // A new connection, non-blocking, with its own budget.
            if fds[0].revents != 0 {
                let client = accept(fd, nil, nil)
                if client >= 0 {
                    _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                    // Full: the oldest connection that has sent nothing goes first (a flood of
                    // silent local connections cannot push out a browser that is sending).
                    if pending.count >= Self.maximumConnections {
                        let victim = pending.firstIndex { $0.bytes.isEmpty } ?? 0
                        close(pending[victim].fd)
                        pending.remove(at: victim)
                    }
                    pending.append(Pending(fd: client, until: min(ContinuousClock.now + Self.connectionBudget, deadline)))
                }
            }
        }
    }

    /// The target of `GET TARGET HTTP/1.1` in the first line of `bytes`.
    static func requestTarget(_ bytes: [UInt8]) -> String? {
        guard let end = bytes.firstIndex(of: 0x0A) else { return nil }
        let parts = String(decoding: bytes[..<end], as: UTF8.self).trimmingWhitespace().split(separator: " ")
        guard parts.count == 3, parts[0] == "GET" else { return nil }
        return String(parts[1])
    }

    static func split(_ target: String) -> (path: String, query: [String: String]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, [:]) }
        var query: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in PercentEncoding.decode(String(text).replacing("+", with: " ")) ?? String(text) }
            if let name = parts.first { query[decode(name)] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        return (String(target[..<mark]), query)
    }

    static func answer(_ client: Int32, status: String, body: String) {
        let page = "<!DOCTYPE html><html><head><title>Vigil</title></head><body><p>\(body)</p></body></html>"
        let response =
            "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(page.utf8.count)\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n\(page)"
        _ = response.withCString { send(client, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    }
}
