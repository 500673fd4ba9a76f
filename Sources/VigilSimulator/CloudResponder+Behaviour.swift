import Foundation
import Synchronization

/// The scenario's behaviours (an outage window, an APM, a redirect, a 404 storm): what they answer
/// before the cloud server does, and the windows and sessions they keep.
extension CloudResponder {

    /// The answer behaviour `b` (the scenario's `index`th) gives, or nil when it lets the request through.
    func behaviour(_ b: Scenario.Behaviour, index: Int, _ request: SimulatedRequest) -> SimulatedResponse? {
        switch b.kind {
        case .normal:
            return nil
        case .notFound:
            return notFound()
        case .notFoundWindow:
            // A 404 by default; another status (a 502 from a load balancer) when the fixture names one.
            guard insideWindow(index, seconds: b.seconds ?? 5) else { return nil }
            return b.status.map { SimulatedResponse($0, [("Content-Type", "text/html; charset=utf-8")], body: "<html><body><h1>\($0)</h1></body></html>") }
                ?? notFound()
        case .rejectDownloads:
            return request.method == "GET" && request.path.hasPrefix("/remote.php/dav/")
                ? SimulatedResponse(500, [("Content-Type", "text/plain")], body: "Internal Server Error") : nil
        case .authRace:
            guard let authorization = request.headers["authorization"] else { return nil }
            let seen = state.withLock { state in
                let seen = state.authorizationsSeen[authorization, default: 0]
                state.authorizationsSeen[authorization] = seen + 1
                return seen
            }
            return seen < (b.count ?? 4) ? unauthorized() : nil
        case .maintenance:
            if request.path.hasSuffix("/status.php") || request.path == "/status.php" { return json(200, status(maintenance: true)) }
            if request.path.hasPrefix("/remote.php/dav") {
                return SimulatedResponse(
                    503, [("Content-Type", "application/xml; charset=utf-8")],
                    body: Self.davException("Sabre\\DAV\\Exception\\ServiceUnavailable", "System in maintenance mode."))
            }
            return nil
        case .apm:
            return apm(request, recovering: b.recovering ?? false, bogusFor: b.seconds.map { (index, $0) })
        case .redirect:
            if let scheme = b.scheme, scheme != request.scheme { return nil }
            guard request.host == 1, !request.path.hasPrefix("/moved/") else { return nil }
            return redirect(b.status ?? 302, to: resolve(b.target ?? "/", path: request.target))
        case .redirectChain:
            let hops = b.hops ?? 30
            if request.path.hasPrefix("/hop/") {
                let parts = request.target.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: true)
                guard parts.count >= 2, let n = Int(parts[1]) else { return notFound() }
                let rest = parts.count > 2 ? "/" + parts[2...].joined(separator: "/") : "/"
                return n < hops ? redirect(302, to: "/hop/\(n + 1)\(rest)") : nil
            }
            return redirect(302, to: "/hop/1\(request.target)")
        case .redirectLoop:
            if request.path.hasPrefix("/loop/a") { return redirect(302, to: "/loop/b" + request.target.dropFirst("/loop/a".count)) }
            if request.path.hasPrefix("/loop/b") { return redirect(302, to: "/loop/a" + request.target.dropFirst("/loop/b".count)) }
            return redirect(302, to: "/loop/a\(request.target)")
        case .loginPage:
            guard request.method == "PROPFIND" else { return nil }
            return SimulatedResponse(200, [("Content-Type", "text/html; charset=utf-8")], body: Self.loginPage)
        case .statusBody:
            guard request.path.hasSuffix("/status.php") else { return nil }
            return SimulatedResponse(b.status ?? 200, [("Content-Type", "application/json; charset=utf-8")], body: b.body ?? "")
        case .truncated:
            guard request.path.hasSuffix("/status.php") else { return nil }
            var answer = SimulatedResponse(200, Self.jsonHeaders, bytes: Array(statusBytes.prefix(statusBytes.count / 2)))
            answer.abort = .truncate(announcedLength: statusBytes.count)
            return answer
        case .oversized:
            guard request.path.hasSuffix("/status.php") else { return nil }
            var answer = SimulatedResponse(200, Self.jsonHeaders, bytes: Array(statusBytes))
            answer.abort = .truncate(announcedLength: 1 << 40)
            return answer
        case .silent:
            guard request.path.hasSuffix("/status.php") else { return nil }
            var answer = SimulatedResponse(200)
            answer.abort = .never
            return answer
        case .accessProxy:
            // The proxy stands in front of host 1; its login page is on host 2.
            guard request.host == 1 else { return nil }
            let token = b.headers ?? [:]
            if token.allSatisfy({ request.headers[$0.key.lowercased()] == $0.value }) { return nil }
            let back = request.target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/"
            return redirect(302, to: resolve("{https:2}", path: "") + "/cdn-cgi/access/login/simulated?redirect_url=\(back)")
        case .trickle:
            guard request.path.hasSuffix("/status.php") else { return nil }
            var answer = SimulatedResponse(200, Self.jsonHeaders, bytes: Array(statusBytes))
            answer.abort = .trickle(milliseconds: Int((b.seconds ?? 1) * 1000))
            return answer
        }
    }

    /// Whether the window of the `index`th behaviour, `seconds` long from the first request it
    /// saw (on the simulator's clock), is still open.
    func insideWindow(_ index: Int, seconds: Double) -> Bool {
        let now = clock.now()
        return state.withLock { state in
            let start = state.windowStarts[index] ?? now
            state.windowStarts[index] = start
            return now.timeIntervalSince(start) < seconds
        }
    }

    func apm(_ request: SimulatedRequest, recovering: Bool, bogusFor window: (index: Int, seconds: Double)? = nil) -> SimulatedResponse? {
        // The seeds' recovering-apm: for a while, clients without the cookie are sent to a bogus
        // endpoint, which sets no cookie and sends nobody back.
        if request.path == "/apm/bogus" {
            return SimulatedResponse(200, [("Content-Type", "text/html; charset=utf-8")], body: Self.accessCheckPage)
        }
        if request.path == "/apm/login" {
            let back = request.target.components(separatedBy: "return=").dropFirst().first.flatMap { $0.removingPercentEncoding } ?? "/"
            let generation = state.withLock { $0.apmGeneration }
            // Only a path on this host: not "//host" or "/\\host", which browsers treat as another host.
            let local = back.hasPrefix("/") && !back.hasPrefix("//") && !back.hasPrefix("/\\") ? back : "/"
            return SimulatedResponse(302, [("Location", local), ("Set-Cookie", "APMSESSION=apm-\(generation); Path=/; Secure; HttpOnly")])
        }
        let valid = state.withLock { state in
            let valid = request.headers["cookie"]?.contains("APMSESSION=apm-\(state.apmGeneration)") == true
            if valid {
                state.apmRequests += 1
                // Recovering: the session is dropped once after a few requests; logging in again fixes it.
                if recovering, state.apmGeneration == 1, state.apmRequests > 3 { state.apmGeneration = 2 }
            }
            return valid
        }
        if valid { return nil }
        let back = request.target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/"
        if let window, insideWindow(window.index, seconds: window.seconds) { return redirect(302, to: "/apm/bogus?return=\(back)") }
        return redirect(302, to: "/apm/login?return=\(back)")
    }

    /// What the bogus endpoint shows: an access check that never ends.
    static let accessCheckPage = """
        <!DOCTYPE html><html><head><title>Checking your access</title></head><body><p>Your access is being checked. Please wait.</p></body></html>
        """
}
