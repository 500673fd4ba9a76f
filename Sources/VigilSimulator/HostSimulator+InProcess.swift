import Foundation

extension HostSimulator {
    /// Whether the simulator has host `host` (1-based) over `scheme`: https on every address,
    /// plain http on the first.
    public func serves(host: Int, scheme: String) -> Bool {
        configuration.addresses.indices.contains(host - 1) && (scheme == "https" || (scheme == "http" && host == 1))
    }

    /// Answers `request` as host `request.host`'s listener for `request.scheme` would, without a
    /// socket: the journal keeps its entry (no connection number) and the responder answers, so a
    /// test of what the simulated server says needs no port. What only a connection shows (the
    /// certificate, TLS, an answer cut on the wire, a proxy, a man in the middle) needs ``run(started:)``.
    ///
    /// Until the simulator runs, the hosts' URLs in answers (a redirect, a discovery document) name
    /// each host's address without a port (`https://127.0.0.2`): nothing listens there.
    public func answerInProcess(_ request: SimulatedRequest) throws -> SimulatedResponse {
        guard serves(host: request.host, scheme: request.scheme) else {
            throw SimulatorError(
                .unknownHost, "The simulator has no \(request.scheme) host \(request.host) (https hosts 1-\(configuration.addresses.count), http host 1).")
        }
        let address = configuration.addresses[request.host - 1]
        for (index, each) in configuration.addresses.enumerated() {
            let authority = each.contains(":") ? "[\(each)]" : each
            responder.setBaseUnlessSet("https:\(index + 1)", "https://\(authority)")
            if index == 0 { responder.setBaseUnlessSet("http:1", "http://\(authority)") }
        }
        let site = SimulatedSite(host: request.host, address: address, scheme: request.scheme, responder: responder, journal: journal)
        return site.answer(request, entry: site.received(request, connection: -1))
    }
}
