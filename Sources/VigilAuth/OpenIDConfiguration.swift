/// The parts of an OpenID Connect discovery document (OpenID Connect Discovery 1.0, section 3)
/// that detection checks and later steps use.
public struct OpenIDConfiguration: Sendable, Hashable, Codable {
    public var issuer: String
    public var authorizationEndpoint: String
    public var tokenEndpoint: String
    public var jwksURI: String?
    public var registrationEndpoint: String?
    public var userinfoEndpoint: String?
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
