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
            authorization: request.headers["authorization"] != nil, cookie: request.headers["cookie"] != nil, body: request.hasBody
        ))
        return answer
    }
}
