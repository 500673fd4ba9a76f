package import VigilSimulator

/// What a client did in a scenario, as the suite classifies it: one of the fixtures' outcomes, or
/// `not-implemented` (the client lacks what the scenario needs; it never matches a fixture).
package enum ClientOutcome: String, Sendable, Hashable, Codable {
    /// Refused: nothing sent.
    case refuse
    /// Asked the user to approve the certificate.
    case askCertificate = "ask-certificate"
    /// Asked the user to approve the redirect.
    case askRedirect = "ask-redirect"
    /// Logged in.
    case login
    /// Reported an error.
    case reportError = "report-error"
    /// The client lacks what the scenario needs; never matches a fixture.
    case notImplemented = "not-implemented"

    /// The same outcome by raw value; one with no match becomes ``reportError``.
    package init(_ outcome: Scenario.Outcome) {
        self = ClientOutcome(rawValue: outcome.rawValue) ?? .reportError
    }
}
