public import VigilSecrets

/// What a login needs from the user: a password, a browser, words on progress. Account setup's
/// interaction refines it with the certificate and redirect questions.
public protocol AuthenticationInteraction: Sendable {
    /// The password, asked only once the certificate is trusted or approved and the server is a
    /// cloud server offering Basic authentication.
    func password(user: String, server: String) async -> Secret?
    /// Opens the authorization URL in the user's browser (OAuth2, OpenID Connect); returns once it is opened.
    func openBrowser(_ url: String) async
    /// A step done, in words.
    func progress(_ message: String) async
    /// A login step would send a credential (`purpose`, in words) to `target`, another origin than
    /// the server the user reviewed (`server`): may it? Shown like a redirect; no by default.
    func approveOtherOrigin(_ target: String, server: String, purpose: String) async -> Bool
}

extension AuthenticationInteraction {
    /// Never, unless the interaction asks the user.
    public func approveOtherOrigin(_ target: String, server: String, purpose: String) async -> Bool { false }
}
