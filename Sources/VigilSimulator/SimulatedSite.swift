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
        var request = SimulatedRequest(
            method: head.method.rawValue, target: head.uri, headers: headers,
            hasBody: !body.isEmpty, scheme: scheme, host: host)
        request.body = body
        return request
    }

    func answer(_ request: SimulatedRequest) -> SimulatedResponse {
        let answer = responder.respond(to: request)
        journal.record(
            JournalEntry(
                time: Journal.timestamp(), host: address, method: request.method, path: request.path, status: answer.status,
                authorization: request.headers["authorization"] != nil, cookie: request.headers["cookie"] != nil, body: request.hasBody,
                scheme: scheme, credential: Self.carriesCredential(request, planted: responder.plantedSecrets()),
                userAgent: request.headers["user-agent"], requestID: request.headers["x-request-id"]
            ))
        return answer
    }

    /// A request the client never finished (its connection closed mid-request): journalled with
    /// status 0, so that what it carried is judged too.
    func abandoned(_ head: HTTPRequestHead, body: [UInt8]) {
        let request = request(from: head, body: body)
        journal.record(
            JournalEntry(
                time: Journal.timestamp(), host: address, method: request.method, path: request.path, status: 0,
                authorization: request.headers["authorization"] != nil, cookie: request.headers["cookie"] != nil, body: request.hasBody,
                scheme: scheme, credential: Self.carriesCredential(request, planted: responder.plantedSecrets())
            ))
    }

    /// Form, query and JSON fields that are credentials when a client sends them.
    static let credentialFields = ["password", "code", "code_verifier", "refresh_token", "client_secret", "access_token", "id_token", "token", "assertion"]
    /// Headers that carry credentials.
    static let credentialHeaders = ["authorization", "proxy-authorization", "cookie"]

    /// A credential header; a credential field in the query, a form or a JSON body; or any planted
    /// secret (a password, its Basic form, a token, a code, a verifier) anywhere in the target, a
    /// header value or the body.
    static func carriesCredential(_ request: SimulatedRequest, planted: [PlantedSecret]) -> Bool {
        if credentialHeaders.contains(where: { request.headers[$0] != nil }) { return true }
        let query = request.query
        if credentialFields.contains(where: { query[$0] != nil }) { return true }
        let body = request.body.isEmpty ? nil : String(decoding: request.body, as: UTF8.self)
        if let body {
            let form = OIDCProvider.form(body)
            if credentialFields.contains(where: { form[$0] != nil || body.contains("\"\($0)\"") }) { return true }
        }
        for secret in planted where !secret.value.isEmpty {
            if request.target.contains(secret.value) || request.headers.values.contains(where: { $0.contains(secret.value) }) { return true }
            if let body, body.contains(secret.value) { return true }
            if !request.body.isEmpty, Data(request.body).range(of: Data(secret.value.utf8)) != nil { return true }
        }
        return false
    }
}
