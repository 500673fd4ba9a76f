import FoundationEssentials
import Glibc
public import VigilHTTP
public import VigilSecrets

/// How the client proves itself at the token endpoint (RFC 6749 section 2.3.1): a public client
/// sends only its id; a confidential one its secret, in HTTP Basic or in the form.
public enum OAuth2ClientAuthentication: Sendable {
    /// A public client: `client_id` in the form, nothing else.
    case none
    /// The id and secret, each form-encoded, in an HTTP Basic `Authorization` header (`client_secret_basic`).
    case basic(Secret)
    /// `client_id` and `client_secret` in the form (`client_secret_post`).
    case post(Secret)

    /// The configured secret, sent as the provider says it accepts (`token_endpoint_auth_methods_supported`):
    /// Basic unless only `client_secret_post` is listed.
    public static func choose(secret: Secret?, supported: [String]?) -> OAuth2ClientAuthentication {
        guard let secret, !secret.isEmpty else { return .none }
        if let supported, !supported.contains("client_secret_basic"), supported.contains("client_secret_post") { return .post(secret) }
        return .basic(secret)
    }
}

/// The token endpoint after login: a refresh (RFC 6749 section 6) and a revocation (RFC 7009),
/// through the trust-gated ``VigilHTTP/HTTPClient``. Tokens are ``VigilSecrets/Secret``s and no
/// message carries one.
public struct OAuth2TokenClient: Sendable {
    /// The trust-gated client the requests go through.
    public var client: HTTPClient
    /// The client id the tokens were issued to.
    public var clientID: String
    /// How the client proves itself at the endpoint.
    public var authentication: OAuth2ClientAuthentication

    /// A token client; a public client unless `authentication` says otherwise.
    public init(client: HTTPClient, clientID: String, authentication: OAuth2ClientAuthentication = .none) {
        self.client = client
        self.clientID = clientID
        self.authentication = authentication
    }

    /// New tokens for `refreshToken`. A refusal (`invalid_grant`, 400/401) throws
    /// ``OAuth2Error/Code/refused``; a network failure throws the ``VigilHTTP/HTTPError`` as it is,
    /// so that the caller keeps its tokens.
    public func refresh(_ refreshToken: Secret, at tokenEndpoint: String) async throws -> OAuth2Tokens {
        let response = try await refreshToken.withValue { token in
            try await post(tokenEndpoint, [("grant_type", "refresh_token"), ("refresh_token", token)])
        }
        if let redirect = response.redirect { throw OAuth2Error(.invalidTokenResponse, "The token endpoint redirects to \(redirect.location); not followed.") }
        if response.status == 429 || response.status >= 500 {
            var error = OAuth2Error(.unavailable, "The token endpoint answered HTTP \(response.status); the tokens are kept, try again later.")
            error.httpStatus = response.status
            throw error
        }
        return try OAuth2Login.tokens(from: response)
    }

    /// Revokes `token` (RFC 7009); true when the server confirmed (200).
    @discardableResult
    public func revoke(_ token: Secret, hint: String, at revocationEndpoint: String) async throws -> Bool {
        let response = try await token.withValue { value in
            try await post(revocationEndpoint, [("token", value), ("token_type_hint", hint)])
        }
        return response.status == 200
    }

    func post(_ url: String, _ items: [(String, String)]) async throws -> HTTPResponse {
        var form = items
        var headers: [(name: String, value: String)] = [
            (name: "Content-Type", value: "application/x-www-form-urlencoded"), (name: "Accept", value: "application/json"),
        ]
        switch authentication {
        case .none:
            form.append(("client_id", clientID))
        case .basic(let secret):
            // RFC 6749 section 2.3.1: both parts form-encoded before Basic.
            let credentials = secret.withValue { OAuth2Login.formEncoded(clientID) + ":" + OAuth2Login.formEncoded($0) }
            headers.append((name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString()))
        case .post(let secret):
            form.append(("client_id", clientID))
            secret.withValue { form.append(("client_secret", $0)) }
        }
        // A token endpoint's grant (a refresh token, a code) is spent by one arrival: sent once.
        var request = HTTPRequest(method: "POST", url: url, headers: headers, body: Array(OAuth2Login.form(form).utf8))
        request.sentOnce = true
        return try await client.send(request)
    }
}
