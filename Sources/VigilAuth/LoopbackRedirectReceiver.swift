import Foundation
import VigilHTTP

/// The loopback redirect of RFC 8252 (section 7.3): a listener on 127.0.0.1 that waits for the
/// browser to come back with the authorization response, answers it with a short page, and
/// returns the query. Only the first request to the callback path counts; others get a 404.
public final class LoopbackRedirectReceiver: @unchecked Sendable {  // fd immutable; closed once in deinit
    public let port: Int
    public let path = "/callback"
    private let fd: Int32

    /// Binds 127.0.0.1 on `port` (0: a free one).
    public init(port: Int = 0) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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
            try await withCheckedThrowingContinuation { continuation in
                Thread { continuation.resume(with: Result { try self.blockingWait(timeout: timeout, state: state, cancelled: cancelled) }) }.start()
            }
        } onCancel: {
            cancelled.set()
        }
    }

    func blockingWait(timeout: Duration, state: String?, cancelled: CancellationFlag = CancellationFlag()) throws -> [String: String] {
        let deadline = ContinuousClock.now + timeout
        var ignored = 0
        while true {
            if cancelled.isSet { throw OAuth2Error(.timeout, "The login was cancelled before the browser came back.") }
            let left = deadline - ContinuousClock.now
            guard left > .zero else {
                if ignored > 0 {
                    throw OAuth2Error(
                        .stateMismatch,
                        "\(ignored) authorization response(s) with another state than Vigil sent came back and were ignored; the login's own answer did not come in time."
                    )
                }
                throw OAuth2Error(.timeout, "The browser did not come back within the time allowed.")
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(min(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000, 1000))
            guard poll(&poller, 1, max(milliseconds, 1)) > 0 else { continue }
            let client = accept(fd, nil, nil)
            guard client >= 0 else { continue }
            defer { close(client) }
            guard let target = Self.requestTarget(client) else { continue }
            let (requestPath, query) = Self.split(target)
            guard requestPath == path, query["code"] != nil || query["error"] != nil else {
                Self.answer(client, status: "404 Not Found", body: "Not found.")
                continue
            }
            if let state, !OAuth2Login.constantTimeEqual(query["state"] ?? "", state) {
                ignored += 1
                Self.answer(
                    client, status: "400 Bad Request",
                    body: "This answer is not for the login Vigil is waiting for, and was ignored. Finish the login in the window Vigil opened.")
                continue
            }
            let body =
                query["error"] == nil
                ? "Vigil received the authorization. You can close this window and go back to the terminal."
                : "The authorization was refused. Close this window; the terminal says what happened."
            Self.answer(client, status: "200 OK", body: body)
            return query
        }
    }

    /// The target of `GET TARGET HTTP/1.1`, read up to the first line (8 KB at most).
    static func requestTarget(_ client: Int32) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while bytes.count < 8192, !bytes.contains(0x0A) {
            // A peer that connects and says nothing is dropped after 5 seconds.
            var ready = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 5000) > 0 else { break }
            let count = read(client, &buffer, buffer.count)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        guard let end = bytes.firstIndex(of: 0x0A) else { return nil }
        let parts = String(decoding: bytes[..<end], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: " ")
        guard parts.count == 3, parts[0] == "GET" else { return nil }
        return String(parts[1])
    }

    static func split(_ target: String) -> (path: String, query: [String: String]) {
        guard let mark = target.firstIndex(of: "?") else { return (target, [:]) }
        var query: [String: String] = [:]
        for pair in target[target.index(after: mark)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text) }
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
