/// What to register when a provider refuses Vigil's loopback redirect URI: the words of the error.
/// Vigil receives the browser's answer on `http://127.0.0.1:PORT/callback` (RFC 8252, section
/// 7.3): a provider that follows the RFC accepts any port for a registered loopback URI; others
/// need the port fixed (`authentication-oauth2.oa2-redirect-port`) and registered with it.
public enum RedirectRegistration {
    /// The path the loopback listener answers.
    static let path = "/callback"

    /// Whether an OAuth2 error (its `error` and `error_description`) or an error page says the
    /// redirect URI is not accepted.
    public static func refusesRedirect(error: String?, description: String?) -> Bool {
        if error == "invalid_redirect_uri" { return true }
        let text = ((error ?? "") + " " + (description ?? "")).lowercased()
        return text.contains("redirect_uri") || text.contains("redirect uri") || text.contains("redirect url") || text.contains("redirect_url")
    }

    /// The refusal and what to register, in words; `fixedPort` is the setting's value (0: a free
    /// port each time), `clientID` the client it is registered for when known.
    public static func advice(redirectURI: String, fixedPort: Int, clientID: String?) -> String {
        "The provider does not accept Vigil's redirect URI \(redirectURI). " + registration(fixedPort: fixedPort, clientID: clientID)
    }

    /// What to register, as a sentence that starts with "Register".
    public static func registration(fixedPort: Int, clientID: String?) -> String {
        let client = clientID.map { " for the client \($0)" } ?? ""
        let docs = " docs/oidc-providers.md shows where, for Keycloak, Authelia, Kanidm, authentik and Zitadel."
        if fixedPort > 0 {
            return "Register exactly http://127.0.0.1:\(fixedPort)\(path)\(client) (authentication-oauth2.oa2-redirect-port is \(fixedPort))." + docs
        }
        return
            "Register http://127.0.0.1\(path)\(client) as a loopback redirect that allows any port (RFC 8252, section 7.3) where the provider offers it; otherwise set authentication-oauth2.oa2-redirect-port to a fixed port P and register http://127.0.0.1:P\(path)."
            + docs
    }
}
