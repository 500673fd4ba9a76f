public import VigilAuth
public import VigilCertificates
public import VigilHTTP
import VigilSecrets

/// What account setup needs from the user. The CLI answers from flags and the terminal; tests
/// answer from values.
public protocol AccountSetupInteraction: AuthenticationInteraction {
    /// The server's chain and verdict, shown before anything else is asked or sent.
    func review(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async
    /// The chain is not trusted and not yet approved: does the user approve this leaf for this
    /// host and port? Asked only when an approval is possible (the leaf names the host).
    func approveCertificate(_ evaluation: TrustEvaluation, chain: [Certificate], endpoint: Endpoint) async -> Bool
    /// `status.php` at `from` redirects to another server's status.php: may setup continue there?
    /// (Downgrades are never offered.) The new server's certificate is then reviewed in turn.
    func approveRedirect(_ redirect: Redirect, from: String) async -> Bool
    /// The account's client certificate or access headers (`what`, in words) were given for
    /// `origin`; an approved redirect moved setup to `target`. Are they presented there too?
    /// Asked after the redirect is approved and before anything is sent to `target`, only when the
    /// account has one of them: approving a redirect does not imply it. No (the default): setup
    /// goes on at `target` without them, and the account does not keep them.
    func presentCredentials(_ what: String, givenFor origin: String, to target: String) async -> Bool
}

extension AccountSetupInteraction {
    /// Never, unless the interaction asks the user.
    public func presentCredentials(_ what: String, givenFor origin: String, to target: String) async -> Bool { false }
}
