public import VigilSimulator

/// What a client did in a scenario, as the suite classifies it: one of the fixtures' outcomes, or
/// `not-implemented` (the client lacks what the scenario needs; it never matches a fixture).
public enum ClientOutcome: String, Sendable, Hashable, Codable {
    case refuse
    case askCertificate = "ask-certificate"
    case askRedirect = "ask-redirect"
    case login
    case reportError = "report-error"
    case notImplemented = "not-implemented"

    public init(_ outcome: Scenario.Outcome) {
        self = ClientOutcome(rawValue: outcome.rawValue) ?? .reportError
    }
}
