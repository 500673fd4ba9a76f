import VigilSimulator

extension SimulationSuite {
    /// What the client sent outside the scenarios, for the whole run: a planted secret (any
    /// scenario's) in a DNS question or at the recorder is a violation of the run (which scenario
    /// sent it cannot be told when scenarios are played at once); every contact is listed, in a
    /// stable order, names that hold a secret never shown.
    func judgeOtherHosts(_ planted: [PlantedSecret]) -> (violations: [Violation], contacted: [String]) {
        var runViolations: [Violation] = []
        var contacted: [String] = []
        // Names asked of the run's name servers: a secret in one went out in a DNS question.
        let nameLeaks = network?.others.secrets(planted) ?? []
        let secretNames = Set(nameLeaks.map(\.name))
        for found in nameLeaks.map(\.found).sorted().prefix(3) {
            runViolations.append(
                Violation(
                    .secretToOtherHost,
                    "A secret was sent in a DNS question (a name that holds it, \(found)), in clear to whoever answers names: the client sends the user's secrets where no one agreed (invariant 1)."
                ))
        }
        if let otherHosts {
            let leaks = otherHosts.secrets(planted)
            // A server name (or a name looked up) that holds a secret is not repeated in the report.
            let secretServerNames = Set(leaks.compactMap { $0.found.hasPrefix("its server name") ? $0.contact.serverName : nil })
            func place(_ contact: OtherHostRecorder.Contact) -> String {
                if contact.udp { return "a UDP port" }
                var shown = contact
                if let name = contact.name, secretNames.contains(name) { shown.name = "a name that holds a secret" }
                return SuiteText.oneLine(shown.place)
            }
            for contact in otherHosts.contacts {
                let name = contact.serverName.map {
                    secretServerNames.contains($0) || secretNames.contains($0)
                        ? ", a server name that holds a secret" : ", server name \(SuiteText.oneLine($0))"
                }
                let line =
                    contact.udp
                    ? "UDP datagrams (\(contact.bytes) byte(s))"
                    : "\(place(contact)) (\(contact.tls ? "TLS" : "clear text")\(name ?? ""), \(contact.bytes) byte(s))"
                if !contacted.contains(line) { contacted.append(line) }
            }
            contacted.sort()
            // In the order of what they say, not of arrival (scenarios play at once): the same run
            // reports the same lines.
            for (contact, found) in leaks.sorted(by: { place($0.contact) + $0.found < place($1.contact) + $1.found }) {
                let violation = Violation(
                    .secretToOtherHost,
                    "A secret reached \(place(contact)), a host outside the scenario (\(found)): the client sends the user's secrets where no one agreed (invariant 1)."
                )
                if !runViolations.contains(violation) && runViolations.count < 5 { runViolations.append(violation) }
            }
            let dropped = otherHosts.dropped
            if dropped.connections > 0 || dropped.truncated > 0 {
                contacted.append(
                    "the recorder's limits: \(dropped.connections) connection(s) or sender(s) not kept, \(dropped.truncated) cut at \(OtherHostRecorder.keep / 1024) KiB (what they sent was not searched: the judgement of hosts outside the scenario is incomplete)"
                )
            }
        }
        if let asked = network?.others.asked, !asked.names.isEmpty {
            let shown = asked.names.prefix(5).map { secretNames.contains($0) ? "a name that holds a secret" : SuiteText.oneLine($0) }.joined(separator: ", ")
            let total = asked.names.count + asked.more
            contacted.insert("\(total) DNS name(s) outside the scenarios asked (\(shown)\(total > 5 ? ", ..." : ""))", at: 0)
        }
        return (runViolations, contacted)
    }
}
