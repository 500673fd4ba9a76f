import VigilSimulator

/// The order in which scenarios start when several are played at once. A few scenarios make the
/// client wait on purpose (a window of errors it must retry through, a server or responder that
/// answers late or never, a flow that ends at a deadline): they take seconds where the others take
/// tens of milliseconds. Started last, one of them leaves the other jobs idle at the end of the
/// run; started first, the short ones fill the time beside it (longest first). Only the start
/// order changes: results are reported in the list's order, and a scenario's verdict never
/// depends on what runs beside it. A wrong estimate costs time, never a verdict.
enum SuiteSchedule {
    /// The indices of `scenarios` in the order to start them: the most patient first, ties in
    /// the list's order (the same for the same list, in every process).
    static func startOrder(_ scenarios: [Scenario]) -> [Int] {
        scenarios.indices.map { (index: $0, wait: patience(scenarios[$0])) }
            .sorted { $0.wait != $1.wait ? $0.wait > $1.wait : $0.index < $1.index }
            .map(\.index)
    }

    /// How long the scenario makes a client wait, in rough classes: 2 when the client is made to
    /// go through its whole retry schedule or a revocation timeout; 1 when it waits for a
    /// deadline, a slow answer or a few refusals; 0 otherwise.
    static func patience(_ scenario: Scenario) -> Int {
        let exhausting: Set<Scenario.Behaviour.Kind> = [.notFound, .notFoundWindow, .apm]
        let waiting: Set<Scenario.Behaviour.Kind> = [.authRace, .silent, .trickle]
        let kinds = Set(scenario.behaviours.map(\.kind))
        if !kinds.isDisjoint(with: exhausting) || scenario.revocation?.responder == .slow { return 2 }
        if !kinds.isDisjoint(with: waiting) || scenario.oidcFaults != nil || scenario.loginFlow?.effectiveEnding == .expire
            || scenario.clientAuth?.mode == .optional
        {
            return 1
        }
        return 0
    }
}
