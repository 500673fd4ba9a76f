/// A method the server offers, with what showed it.
public struct DetectedAuthenticationMethod: Sendable, Hashable {
    public var identifier: AuthenticationMethodIdentifier
    /// What the server answered that shows the method, in words (no secret: detection sends none).
    public var evidence: String
    /// For OpenID Connect: the discovery document.
    public var openIDConfiguration: OpenIDConfiguration?

    public init(identifier: AuthenticationMethodIdentifier, evidence: String, openIDConfiguration: OpenIDConfiguration? = nil) {
        self.identifier = identifier
        self.evidence = evidence
        self.openIDConfiguration = openIDConfiguration
    }
}
