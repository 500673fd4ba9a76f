/// The parts of an OpenID Connect discovery document (OpenID Connect Discovery 1.0, section 3)
/// that detection checks and later steps use.
public struct OpenIDConfiguration: Sendable, Hashable, Codable {
    /// `issuer`: the provider's identifier, a URL.
    public var issuer: String
    /// `authorization_endpoint`: where the browser is sent.
    public var authorizationEndpoint: String
    /// `token_endpoint`: where codes are exchanged and tokens refreshed.
    public var tokenEndpoint: String
    /// `jwks_uri`: the keys id_tokens are signed with; nil: none named (login refuses such a provider).
    public var jwksURI: String?
    /// `registration_endpoint` (RFC 7591); nil: the provider offers no dynamic registration.
    public var registrationEndpoint: String?
    /// `userinfo_endpoint`; nil: none, and the id_token's subject is not checked against it.
    public var userinfoEndpoint: String?
    /// `code_challenge_methods_supported`: the PKCE methods offered; nil: not listed.
    public var codeChallengeMethodsSupported: [String]?
    /// RFC 9207: the provider puts `iss` in every authorization response.
    public var authorizationResponseIssParameterSupported: Bool?
    /// RFC 7009.
    public var revocationEndpoint: String?
    /// How a confidential client may authenticate at the token endpoint.
    public var tokenEndpointAuthMethodsSupported: [String]?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case registrationEndpoint = "registration_endpoint"
        case userinfoEndpoint = "userinfo_endpoint"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
        case revocationEndpoint = "revocation_endpoint"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
    }
}
