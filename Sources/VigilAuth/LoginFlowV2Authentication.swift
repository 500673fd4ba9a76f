import FoundationEssentials
public import VigilSecrets
import VigilText

/// Nextcloud's Login Flow v2 as a method (``LoginFlowV2``): the browser opens the server's login
/// page (no loopback listener), Vigil polls until the user approved, the flow expired or the
/// user pressed Ctrl-C, and keeps the app password (kind `password`, used with Basic). The poll
/// endpoint and the server the answer names must be the origin the user reviewed: another poll
/// origin is asked like a redirect; another or an http server is refused, the app password
/// revoked at once.
public struct LoginFlowV2Authentication: AuthenticationMethod {
    /// `com.nextcloud.login-flow-v2`.
    public let identifier = AuthenticationMethodIdentifier.loginFlowV2
    /// The app password.
    public let secretKinds: [SecretKey.Kind] = [.password]
    /// False: the app password authorizes every request until it is revoked.
    public let usesTokens = false

    /// The method; its settings come with the context (the browser's time).
    public init() {}

    /// Runs the flow. Throws ``LoginFlowError``.
    public func logIn(_ context: AuthenticationContext, interaction: any AuthenticationInteraction) async throws -> AuthenticationLogin {
        let flow = LoginFlowV2(client: context.client, server: context.server)
        let started = try await flow.start()
        if !flow.isOwnOrigin(started.pollEndpoint) {
            let approved = await interaction.approveOtherOrigin(
                started.pollEndpoint, server: context.server, purpose: "the login flow's poll token (whoever holds it receives the app password)")
            guard approved else {
                throw LoginFlowError(
                    .otherOrigin,
                    "The server's login flow polls at \(started.pollEndpoint), another origin than \(context.server); not approved, so the poll token was not sent there."
                )
            }
        }
        if !flow.isOwnOrigin(started.login) {
            // The user types the password on that page: the browser shows its address; say it.
            await interaction.progress(
                "The login page is on another origin than \(context.server): \(LoginFlowV2.origin(of: started.login)). Check the browser's address bar before you type your password."
            )
        }
        let patience = min(context.settings.browserTimeout, LoginFlowV2.flowLifetime)
        let seconds = patience.components.seconds
        let waits = seconds >= 120 ? "\(seconds / 60) minutes" : "\(seconds) seconds"
        await interaction.progress(
            "Log in as \(context.user) in the browser and grant Vigil access (Nextcloud Login Flow v2); Vigil waits at most \(waits) (Ctrl-C stops).")
        await interaction.openBrowser(started.login)
        let grant = try await flow.poll(started, until: ContinuousClock.now + patience)
        // The account is the reviewed server's and the user's asked for: anything else is refused,
        // and the app password just issued revoked at the server that issued it.
        var refusal: LoginFlowError?
        if !grant.server.lowercased().hasPrefix("https://") {
            refusal = LoginFlowError(
                .plainHTTP,
                "The server names itself \(grant.server), not https: " + PlainHTTPAdvice.text(server: context.server, product: "Nextcloud")
                    + " The app password was not kept.")
        } else if !flow.isOwnOrigin(grant.server) {
            refusal = LoginFlowError(
                .otherOrigin,
                "The server names itself \(grant.server), another origin than \(context.server) which was reviewed; the app password was not kept. If that is the server's real address, add the account at \(grant.server) (its certificate is reviewed then)."
            )
        } else if grant.loginName != context.user {
            refusal = LoginFlowError(
                .userMismatch,
                "The browser logged in \(grant.loginName), not \(context.user); the app password was not kept. Add the account with \(SuggestedCommand.line(["--user", grant.loginName])), or log in as \(context.user)."
            )
        }
        if let refusal {
            let revoked = (try? await flow.revoke(appPassword: grant.appPassword, loginName: grant.loginName)) ?? false
            await interaction.progress(
                revoked
                    ? "The app password just issued was revoked."
                    : "The app password just issued could not be revoked: remove it in the server's security settings.")
            throw refusal
        }
        return AuthenticationLogin(
            secrets: [.password: grant.appPassword], authorization: Secret(BasicAuthentication.header(user: context.user, password: grant.appPassword)),
            refusal: "\(context.server) refused the app password the login flow gave.")
    }

    /// `Basic` with the stored app password; nil without one.
    public func authorization(user: String, secrets: [SecretKey.Kind: Secret]) -> String? {
        secrets[.password].map { BasicAuthentication.header(user: user, password: $0) }
    }
}
