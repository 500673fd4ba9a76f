import Foundation
import NIOHTTP1

/// One simulated host as a listener serves it: turns NIO's request into a ``SimulatedRequest``,
/// asks the ``CloudResponder`` and writes the journal line.
struct SimulatedSite: Sendable {
    let host: Int
    let address: String
    let scheme: String
    let responder: CloudResponder
    let journal: Journal

    func request(from head: HTTPRequestHead, body: [UInt8]) -> SimulatedRequest {
        var headers: [String: String] = [:]
        for (name, value) in head.headers {
            let key = name.lowercased()
            headers[key] = headers[key].map { $0 + ", " + value } ?? value
        }
        var request = SimulatedRequest(method: head.method.rawValue, target: head.uri, headers: headers,
                                       hasBody: !body.isEmpty, scheme: scheme, host: host)
        request.body = body
        return request
    }

    func answer(_ request: SimulatedRequest) -> SimulatedResponse {
        let answer = responder.respond(to: request)
        journal.record(JournalEntry(
            time: Journal.timestamp(), host: address, method: request.method, path: request.path, status: answer.status,
            authorization: request.headers["authorization"] != nil, cookie: request.headers["cookie"] != nil, body: request.hasBody,
            scheme: scheme, credential: Self.carriesCredential(request)
        ))
        return answer
    }

    /// Form fields that are credentials when a client sends them.
    static let credentialFields = ["password", "code", "code_verifier", "refresh_token", "client_secret"]

    /// An Authorization header, a cookie, or a credential field in the body or the query.
    static func carriesCredential(_ request: SimulatedRequest) -> Bool {
        if request.headers["authorization"] != nil || request.headers["cookie"] != nil { return true }
        let query = request.query
        if credentialFields.contains(where: { query[$0] != nil }) { return true }
        guard request.hasBody, let text = String(bytes: request.body, encoding: .utf8) else { return request.hasBody && request.method == "POST" }
        let form = OIDCProvider.form(text)
        if credentialFields.contains(where: { form[$0] != nil }) { return true }
        return credentialFields.contains { text.contains("\"\($0)\"") }
    }
}
