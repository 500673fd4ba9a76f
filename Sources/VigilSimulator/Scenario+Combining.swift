import Foundation

extension Scenario {
    /// Several scenarios played at once on one set of hosts (the seeds' list of active
    /// simulations: `simple-apm` and `five-seconds-of-404`): the first gives the hosts, their
    /// certificates, users and provider; every scenario's behaviours are active, tried in the
    /// order given. Only scenarios that differ in behaviour combine: one that also changes the
    /// certificates, TLS versions, provider faults, schemes, users, a man in the middle or a
    /// revocation PKI cannot be played beside another, and the error says which field stops it.
    public static func combining(_ scenarios: [Scenario]) throws -> Scenario {
        guard var combined = scenarios.first else { throw SimulatorError(.unknownScenario, "No scenario to play.") }
        guard scenarios.count > 1 else { return combined }
        for other in scenarios.dropFirst() {
            let fixed: [(String, Bool)] = [
                ("certificates", other.certificates != nil && other.certificates != combined.certificates),
                ("tlsVersions", other.tlsVersions != nil && other.tlsVersions != combined.tlsVersions),
                ("oidcFaults", other.oidcFaults != nil && other.oidcFaults != combined.oidcFaults),
                ("authSchemes", other.authSchemes != nil && other.authSchemes != combined.authSchemes),
                ("users", other.users != nil && other.users != combined.users),
                ("mitm", (other.mitm ?? false) != (combined.mitm ?? false)),
                ("revocation", other.revocation != nil && other.revocation != combined.revocation),
                ("serverSetup", other.serverSetup != nil && other.serverSetup != combined.serverSetup),
            ]
            if let (field, _) = fixed.first(where: { $0.1 }) {
                throw SimulatorError(
                    .malformedFixture,
                    "\(other.name) cannot be played beside \(combined.name): it sets \(field), and only scenarios that differ in behaviour combine.")
            }
            if combined.name.split(separator: "+").contains(Substring(other.name)) {
                throw SimulatorError(.malformedFixture, "\(other.name) is named twice.")
            }
            let added = other.behaviours.filter { $0.kind != .normal }
            combined.also = (combined.also ?? []) + added
            combined.name += "+" + other.name
            combined.summary += " And: " + other.summary
        }
        let active = combined.behaviours.filter { $0.kind != .normal }
        combined.behaviour = active.first ?? combined.behaviour
        combined.also = active.count > 1 ? Array(active.dropFirst()) : nil
        return combined
    }
}

extension ScenarioLibrary {
    /// A scenario by its name, or by the seeds' name of the simulation it plays
    /// (`reference.seeds`, as in the SDK's `host-simulator.active-simulations`).
    public func scenario(namedOrSeeds name: String) throws -> Scenario {
        if let scenario = scenarios.first(where: { $0.name == name }) { return scenario }
        let bySeeds = scenarios.filter { $0.reference.seeds == name }
        if bySeeds.count == 1 { return bySeeds[0] }
        return try scenario(named: name)
    }
}
