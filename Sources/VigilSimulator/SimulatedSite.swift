import Foundation
import NIOHTTP1

/// One simulated host as a listener serves it: turns NIO's request into a ``SimulatedRequest``,
/// asks the ``CloudResponder`` and keeps the journal: an entry the moment a head arrives,
/// completed when the request is answered or its connection ends.
struct SimulatedSite: Sendable {
    let host: Int
    let address: String
    let scheme: String
    let responder: CloudResponder
    let journal: Journal
    /// In front of a real server: what the behaviours let through goes there.
    var front: ReverseProxy?

    func request(from head: HTTPRequestHead, body: [UInt8]) -> SimulatedRequest {
        var headers: [String: String] = [:]
        for (name, value) in head.headers {
            let key = name.lowercased()
            headers[key] = headers[key].map { $0 + ", " + value } ?? value
        }
        var request = SimulatedRequest(
            method: head.method.rawValue, target: head.uri, headers: headers,
            hasBody: !body.isEmpty, scheme: scheme, host: host)
        request.body = body
        request.headerNames = head.headers.map(\.name)
        return request
    }

    /// A head arrived: its entry, judged on the head alone until the body is in. Returns its number.
    func received(_ request: SimulatedRequest, connection: Int) -> Int {
        var entry = JournalEntry(
            time: Journal.timestamp(), host: address, method: request.method, path: request.path, status: 0,
            authorization: request.headers["authorization"] != nil, cookie: request.headers["cookie"] != nil, body: false,
            scheme: scheme, userAgent: request.headers["user-agent"], requestID: request.headers["x-request-id"])
        entry.connection = connection >= 0 ? connection : nil
        let access = responder.accessHeaderNames.filter { request.headers[$0] != nil }
        entry.accessHeaders = access.isEmpty ? nil : access
        let found = Self.findings(request, search: responder.credentialSearch(), parts: .head)
        entry.credential = !found.isEmpty
        entry.found = found.isEmpty ? nil : found
        return journal.begin(entry)
    }

    /// Answers the whole request and completes its entry.
    func answer(_ request: SimulatedRequest, entry number: Int) -> SimulatedResponse {
        let answer = responder.respond(to: request)
        let token = request.headers["authorization"]?.lowercased().hasPrefix("bearer ") == true
        complete(number, request, status: answer.status, accepted: answer.authenticatedUser != nil, token: token, fault: answer.fault)
        return answer
    }

    /// Completes an entry: what the whole request carried, the status answered (0: never
    /// answered), and the file line.
    func complete(_ number: Int, _ request: SimulatedRequest, status: Int, accepted: Bool = false, token: Bool = false, fault: Bool = false) {
        // The head was searched when it arrived; only the body is new.
        let found = request.body.isEmpty ? [] : Self.findings(request, search: responder.credentialSearch(), parts: .body)
        // On a login provider's host (another host than the server's), a password is looked for
        // apart: tokens may go there, a password never.
        let password = responder.scenario.oidcFaults?.providerHost == host && responder.carriesPassword(request)
        let proxyPassword = responder.carriesProxyPassword(request)
        journal.update(number) { entry in
            if password { entry.password = true }
            if proxyPassword { entry.proxyPassword = true }
            entry.status = status
            entry.body = request.hasBody || entry.body
            let all = (entry.found ?? []) + found.filter { !(entry.found ?? []).contains($0) }
            entry.found = all.isEmpty ? nil : all
            entry.credential = !all.isEmpty
            if accepted { entry.accepted = true }
            if accepted && token { entry.acceptedToken = true }
            if fault { entry.fault = true }
        }
        journal.finish(number)
    }

    /// Bytes that never parsed as a request head: journalled (method and path `?`), with any
    /// credential found in them.
    func unparseable(_ bytes: [UInt8], connection: Int, status: Int) {
        var entry = JournalEntry(
            time: Journal.timestamp(), host: address, method: "?", path: "?", status: status, authorization: false, cookie: false,
            body: false, scheme: scheme)
        entry.parsed = false
        entry.connection = connection >= 0 ? connection : nil
        let found = Self.findings(raw: bytes, search: responder.credentialSearch())
        entry.credential = !found.isEmpty
        entry.found = found.isEmpty ? nil : found
        entry.authorization = found.contains("an Authorization header")
        entry.cookie = found.contains("a Cookie header")
        journal.record(entry)
    }

    /// Form, query and JSON fields that are credentials when a client sends them.
    static let credentialFields = ["password", "code", "code_verifier", "refresh_token", "client_secret", "access_token", "id_token", "token", "assertion"]
    /// Headers that carry credentials, and how the journal names them.
    static let credentialHeaders = [
        ("authorization", "an Authorization header"), ("proxy-authorization", "a Proxy-Authorization header"), ("cookie", "a Cookie header"),
    ]

    /// Where `request` carries a credential, in words: a credential header; a credential field
    /// in the query, a form or a JSON body; or a planted secret (a password, its Basic form, a
    /// token, a code, a verifier) in the request line, a header's name or value, or the body, as
    /// sent or in a common encoding (``CredentialSearch``). Empty: none.
    static func findings(_ request: SimulatedRequest, search: CredentialSearch, parts: Parts = .all) -> [String] {
        var found: [String] = []
        let head = parts != .body, body = parts != .head
        if head {
            for (header, words) in credentialHeaders where request.headers[header] != nil { found.append(words) }
            let query = request.query
            for field in credentialFields where query[field] != nil { found.append("the query (field \(field))") }
        }
        if body, !request.body.isEmpty {
            let body = String(decoding: request.body.prefix(1 << 20), as: UTF8.self)
            let form = OIDCProvider.form(body)
            for field in credentialFields where form[field] != nil || body.contains("\"\(field)\"") { found.append("the body (field \(field))") }
        }
        guard !search.secrets.isEmpty else { return found }
        if body, let how = search.find(in: request.body) { found.append("the body (\(how))") }
        guard head else { return found }
        let path = SimulatedRequest.path(of: request.target)
        if let how = search.find(in: Array((request.method + " " + path).utf8)) { found.append("the request line (\(how))") }
        if request.target.count > path.count, let how = search.find(in: Array(request.target.utf8.dropFirst(path.utf8.count))) {
            found.append("the query (\(how))")
        }
        for name in request.headerNames {
            if let how = search.find(in: Array(name.utf8)) { found.append("a header name (\(how))") }
        }
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) where !credentialHeaders.contains(where: { $0.0 == name }) {
            if let how = search.find(in: Array(value.utf8)) { found.append("the \(SafeName.header(name)) header (\(how))") }
        }
        return found
    }

    /// Which parts of a request ``findings(_:search:parts:)`` looks at.
    enum Parts: Sendable {
        case head, body, all
    }

    /// What raw bytes that are not a parsable request carry: a credential header line, or a
    /// planted secret in any common encoding.
    static func findings(raw bytes: [UInt8], search: CredentialSearch, what: String = "an unparsable request") -> [String] {
        var found: [String] = []
        let text = String(decoding: bytes, as: UTF8.self).lowercased()
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            for (header, words) in credentialHeaders where trimmed.hasPrefix(header + ":") && !found.contains(words) { found.append(words) }
        }
        if let how = search.find(in: bytes) { found.append("\(what) (\(how))") }
        // HTTP/2 in clear: its header blocks are HPACK-coded (Huffman too), so read as sent.
        if let frames = HTTP2Frames.decode(bytes) {
            for (name, value) in frames.headers {
                let lower = name.lowercased()
                if let words = credentialHeaders.first(where: { $0.0 == lower })?.1, !found.contains(words) { found.append(words) }
                if let how = search.find(in: Array(name.utf8)) { found.append("an HTTP/2 header name (\(how))") }
                if let how = search.find(in: Array(value.utf8)) { found.append("the \(SafeName.header(name)) header, HTTP/2 (\(how))") }
            }
            if let how = search.find(in: frames.data) { found.append("an HTTP/2 body (\(how))") }
        }
        return found
    }
}

/// A header name as the journal shows it: lower-case, printable, at most 60 characters.
enum SafeName {
    static func header(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.map { $0.value > 0x20 && $0.value < 0x7F ? Character($0) : "?" }.prefix(60))
    }
}
