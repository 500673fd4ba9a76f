import Logging
import VigilLogging

extension HTTPClient {
    /// `request` sent again after each delay while `shouldRetry` holds for its answer (a load
    /// balancer's 404, a cluster that learns a new token late): bounded by the delays, cancellable
    /// (the sleeps and the transfers). `onRetry` hears of each pause. Returns the last answer and
    /// how many times the request was sent.
    public func send(
        _ request: HTTPRequest, retryingAfter delays: [Duration], when shouldRetry: (HTTPResponse) -> Bool,
        onRetry: (HTTPResponse, Duration) async -> Void = { _, _ in }
    ) async throws -> (response: HTTPResponse, tries: Int) {
        var answer = try await send(request)
        var tries = 1
        for delay in delays where shouldRetry(answer) {
            logger.privacy.warning(
                "HTTP \(public: request.method) \(HTTPLogRedactor().redact(url: request.url)) answered \(public: answer.status); trying again in \(public: delay) (try \(public: tries + 1) of \(public: delays.count + 1))",
                metadata: ["tags": "http,retry"])
            await onRetry(answer, delay)
            try await Task.sleep(for: delay)
            answer = try await send(request)
            tries += 1
        }
        return (answer, tries)
    }
}
