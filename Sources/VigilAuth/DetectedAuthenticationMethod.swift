/// A method the server offers, with what showed it.
public struct DetectedAuthenticationMethod: Sendable, Hashable {
    /// The method offered.
    public var identifier: AuthenticationMethodIdentifier
    /// What the server answered that shows the method, in words (no secret: detection sends none).
    public var evidence: String
    /// For OpenID Connect: the discovery document.
    public var openIDConfiguration: OpenIDConfiguration?

    /// A method found, with its evidence and, for OpenID Connect, the discovery document.
    public init(identifier: AuthenticationMethodIdentifier, evidence: String, openIDConfiguration: OpenIDConfiguration? = nil) {
        self.identifier = identifier
        self.evidence = evidence
        self.openIDConfiguration = openIDConfiguration
    }
}
