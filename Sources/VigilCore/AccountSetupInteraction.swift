public import VigilCertificates
public import VigilHTTP
public import VigilSecrets

/// What account setup needs from the user. The CLI answers from flags and the terminal; tests
/// answer from values.
public protocol AccountSetupInteraction: Sendable {
    /// The server's chain and verdict, shown before anything else is asked or sent.
    func review(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async
    /// The chain is not trusted and not yet approved: does the user approve this leaf for this
    /// host and port? Asked only when an approval is possible (the leaf names the host).
    func approveCertificate(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async -> Bool
    /// `status.php` at `from` redirects to another server's status.php: may setup continue there?
    /// (Downgrades are never offered.) The new server's certificate is then reviewed in turn.
    func approveRedirect(_ redirect: Redirect, from: String) async -> Bool
    /// The password, asked only once the certificate is trusted or approved and the server is a
    /// cloud server offering Basic authentication.
    func password(user: String, server: String) async -> Secret?
    /// Opens the authorization URL in the user's browser (OAuth2); returns once it is opened.
    func openBrowser(_ url: String) async
    /// A step done, in words.
    func progress(_ message: String) async
}
